#!/bin/bash
# Prints a python that imports JAX: $XTUNE_JAX_PYTHON, or WORKDIR/venv made
# once from PyPI (jax, numpy) and reused. Exits 77 (CTest's skip) when JAX
# cannot be installed here, saying why. Tests using the same WORKDIR hold
# the CTest resource lock jax_venv.
# usage: jax_python.sh WORKDIR
set -u
work=$1
if [ -n "${XTUNE_JAX_PYTHON:-}" ]; then
  echo "$XTUNE_JAX_PYTHON"
  exit 0
fi
mkdir -p "$work"
venv=$work/venv
if ! "$venv/bin/python" -c "import jax" 2>/dev/null; then
  if ! python3 -m venv "$venv" >"$work/venv.log" 2>&1 ||
     ! "$venv/bin/pip" install --quiet jax numpy >>"$work/venv.log" 2>&1; then
    echo "SKIP: JAX could not be installed from PyPI (see $work/venv.log):" >&2
    tail -3 "$work/venv.log" >&2
    exit 77
  fi
fi
echo "$venv/bin/python"
