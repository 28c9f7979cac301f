#!/bin/bash
# Checks `xtune run --backend=interpreter` against the NumPy reference
# (the hlo_numpy package) on every example module, every test-data module
# and every module in tests/numpy/cases, after the reference's own
# self-test (test_hlo_numpy.py).
#
# usage: run_all.sh XTUNE_BINARY WORKDIR [extra check_module.py flags]
# Exits 0 when every module matches, 1 when any fails.
set -u

if [ $# -lt 2 ]; then
  echo "usage: $0 XTUNE_BINARY WORKDIR [check_module.py flags, e.g. --seed 3]" >&2
  exit 2
fi
XTUNE=$1
WORKDIR=$2
shift 2

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
PYTHON=${XTUNE_PYTHON:-/usr/bin/python3}

if [ ! -x "$XTUNE" ]; then
  echo "run_all.sh: $XTUNE is not an executable" >&2
  exit 1
fi
if ! "$PYTHON" -c "import numpy" 2>/dev/null; then
  echo "run_all.sh: $PYTHON cannot import numpy" >&2
  exit 1
fi

mkdir -p "$WORKDIR"
passed=0
failed=()

# The reference's own self-test first: a broken reference makes every
# comparison meaningless.
if "$PYTHON" "$HERE/test_hlo_numpy.py" >"$WORKDIR/test_hlo_numpy.log" 2>&1; then
  echo "PASS test_hlo_numpy.py (reference self-test)"
  passed=$((passed + 1))
else
  cat "$WORKDIR/test_hlo_numpy.log"
  echo "FAIL test_hlo_numpy.py (reference self-test)"
  failed+=("$HERE/test_hlo_numpy.py")
fi

for module in "$ROOT"/examples/*.hlo "$ROOT"/tests/data/*.hlo "$HERE"/cases/*.hlo; do
  [ -e "$module" ] || continue
  name=$(basename "$(dirname "$module")")_$(basename "$module" .hlo)
  if "$PYTHON" "$HERE/check_module.py" "$XTUNE" "$module" "$WORKDIR/$name" "$@"; then
    passed=$((passed + 1))
  else
    failed+=("$module")
  fi
done

echo
echo "run_all.sh: $passed passed, ${#failed[@]} failed"
if [ ${#failed[@]} -ne 0 ]; then
  for m in "${failed[@]}"; do echo "  FAILED: $m"; done
  exit 1
fi
exit 0
