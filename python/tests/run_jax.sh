#!/bin/bash
# Runs jax_route.py with a python that imports JAX: $XTUNE_JAX_PYTHON, or a
# virtual environment made once under WORKDIR from PyPI (the one
# tests/jax/run.sh makes, shared through a CTest resource lock). Exits 77
# (CTest's skip) when JAX cannot be installed here, saying why.
# usage: run_jax.sh BUILD_PYTHON_DIR WORKDIR
set -u
pkg=$1 work=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
python=${XTUNE_JAX_PYTHON:-}
if [ -z "$python" ]; then
  mkdir -p "$work"
  venv=$work/venv
  python=$venv/bin/python
  if ! "$python" -c "import jax" 2>/dev/null; then
    if ! python3 -m venv "$venv" >"$work/venv.log" 2>&1 ||
       ! "$venv/bin/pip" install --quiet jax numpy >>"$work/venv.log" 2>&1; then
      echo "SKIP: JAX could not be installed from PyPI (see $work/venv.log):"
      tail -3 "$work/venv.log"
      exit 77
    fi
  fi
fi
if ! "$python" -c "import sys; sys.exit(sys.version_info[:2] != (3, $(/usr/bin/python3 -c 'import sys; print(sys.version_info[1])')))"; then
  echo "SKIP: $python is not the Python minor version the module was built for"
  exit 77
fi
export JAX_PLATFORMS=cpu PYTHONPATH=$pkg
exec "$python" "$here/jax_route.py"
