#!/bin/bash
# Runs jax_route.py with a python that imports JAX (tests/jax/jax_python.sh:
# $XTUNE_JAX_PYTHON, or the virtual environment under WORKDIR that
# tests/jax/run.sh also uses). Exits 77 (CTest's skip) when JAX cannot be
# installed here, saying why.
# usage: run_jax.sh BUILD_PYTHON_DIR WORKDIR
set -u
pkg=$1 work=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
python=$("$here/../../tests/jax/jax_python.sh" "$work") || exit $?
# The extension's name says the Python it was built for (_xtune.cpython-311-...).
built=$(ls "$pkg"/xtune/_xtune.cpython-*.so 2>/dev/null | sed -n 's/.*cpython-\([0-9]*\)-.*/\1/p' | head -1)
have=$("$python" -c 'import sys; print("%d%d" % sys.version_info[:2])' 2>/dev/null)
if [ -z "$built" ] || [ "$built" != "$have" ]; then
  echo "SKIP: the module in $pkg is built for CPython '${built:-none}', $python is '${have:-unusable}'"
  exit 77
fi
export JAX_PLATFORMS=cpu PYTHONPATH=$pkg
exec "$python" "$here/jax_route.py"
