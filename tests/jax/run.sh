#!/bin/bash
# Checks xtune against XLA:CPU on the real JAX programs of models.py, on
# every backend (check_models.py). JAX comes from PyPI into a virtual
# environment under WORKDIR (made once, reused); set XTUNE_JAX_PYTHON to a
# python that already imports jax to skip that.
#
# usage: run.sh XTUNE_BINARY WORKDIR [check_models.py flags]
# Exits 0 when everything matches, 1 on a mismatch, 77 (CTest's skip) when
# JAX cannot be installed here, saying why.
set -u
if [ $# -lt 2 ]; then
  echo "usage: $0 XTUNE_BINARY WORKDIR [check_models.py flags]" >&2
  exit 2
fi
XTUNE=$1
WORKDIR=$2
shift 2
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mkdir -p "$WORKDIR"
PYTHON=$("$HERE/jax_python.sh" "$WORKDIR") || exit $?
export JAX_PLATFORMS=cpu
exec "$PYTHON" "$HERE/check_models.py" "$XTUNE" "$WORKDIR" "$@"
