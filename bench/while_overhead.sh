#!/bin/bash
# The per-iteration cost of a `while` loop against the same body unrolled:
# N steps of x = tanh(x @ w) (one gemm fusion a step, as XLA fuses it) run
# as a while loop (the body's gemm fusion, the counter and the condition
# fusions, the predicate read back, the loop state moved between
# iterations) and as N unrolled steps (N gemm fusions, one after another).
# Prints one JSON line per backend: the median run time of each module
# (`xtune run --benchmark=R`, default configs so both run the same
# kernels), the loop's overhead per iteration ((loop - unrolled) / N), and
# loop / unrolled.
#
# usage: bench/while_overhead.sh [XTUNE_BINARY] [N] [R] [BACKENDS]
#        (defaults: build/xtune, 32, 200, "cpu cuda_emulator")
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
xtune=${1:-$root/build/xtune}
n=${2:-32}
runs=${3:-200}
backends=${4:-cpu cuda_emulator}
work=${XTUNE_BENCH_WORK:-$root/build/bench/while_work}
mkdir -p "$work"

python3 - "$n" "$work" <<'PY'
import sys
n, work = int(sys.argv[1]), sys.argv[2]
shape, w = "f32[8,64]{1,0}", "f32[64,64]{1,0}"
state = f"(s32[], {shape}, {w})"
loop = f"""HloModule while_loop

cond {{
  s = {state} parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant({n})
  ROOT lt = pred[] compare(i, n), direction=LT
}}

body {{
  s = {state} parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = {shape} get-tuple-element(s), index=1
  w = {w} get-tuple-element(s), index=2
  one = s32[] constant(1)
  next = s32[] add(i, one)
  d = {shape} dot(x, w), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}
  y = {shape} tanh(d)
  ROOT out = {state} tuple(next, y, w)
}}

ENTRY main {{
  x = {shape} parameter(0)
  w = {w} parameter(1)
  zero = s32[] constant(0)
  init = {state} tuple(zero, x, w)
  loop = {state} while(init), condition=cond, body=body
  ROOT result = {shape} get-tuple-element(loop), index=1
}}
"""
steps = []
prev = "x"
for k in range(n):
    steps.append(f"  d{k} = {shape} dot({prev}, w), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}")
    steps.append(f"  y{k} = {shape} tanh(d{k})")
    prev = f"y{k}"
unrolled = "HloModule unrolled\n\nENTRY main {\n" + \
    f"  x = {shape} parameter(0)\n  w = {w} parameter(1)\n" + \
    "\n".join(steps) + f"\n  ROOT result = {shape} copy({prev})\n}}\n"
open(f"{work}/loop.hlo", "w").write(loop)
open(f"{work}/unrolled.hlo", "w").write(unrolled)
PY

median_ms() {
  "$xtune" run "$1" --backend="$2" --xla_gpu_autotune_level=0 \
    --benchmark="$runs" 2>&1 |
    sed -n 's/.*median \([0-9.]*\) ms.*/\1/p' | head -1
}
for b in $backends; do
  loop=$(median_ms "$work/loop.hlo" "$b")
  unrolled=$(median_ms "$work/unrolled.hlo" "$b")
  if [ -z "$loop" ] || [ -z "$unrolled" ]; then
    echo "while_overhead: no benchmark line from xtune on $b" >&2
    exit 1
  fi
  python3 -c "
import json
loop, unrolled, n = $loop, $unrolled, $n
print(json.dumps({'bench': 'while_overhead', 'backend': '$b', 'iterations': n,
                  'loop_ms': loop, 'unrolled_ms': unrolled,
                  'overhead_us_per_iteration': round((loop - unrolled) / n * 1e3, 3),
                  'ratio': round(loop / unrolled, 3)}))"
done
