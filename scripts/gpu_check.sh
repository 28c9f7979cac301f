#!/usr/bin/env bash
# What a machine with an NVIDIA GPU runs, from a bundle made by
# `make gpu-bundle` (no Debian packages needed) or from a build tree:
#
#   scripts/gpu_check.sh OUTDIR      (under 8 minutes; every log in OUTDIR)
#
# Steps, each with a time limit and its log in OUTDIR/<step>.log; the
# verdict of each is in OUTDIR/summary.txt:
#   gpu          nvidia-smi's view of the device
#   devices      `xtune devices`: the driver's device string for `cuda`
#                (the first real run of the driver API), beside the shipped
#                target's for the same GPU (devices_compare)
#   codegen      cuda_codegen_test: NVRTC, the driver, deviceless compiles
#   emulator     cuda_emulator_test: the emulator's self-tests
#   compile      every example compiled by `cuda` for this GPU, kernels
#                dumped to OUTDIR/kernels-<example>/
#   emulate      every example run by cuda_emulator with --verify
#   xla          with JAX: XLA's own autotune dump of a matmul on this GPU
#                (its device string, to compare with ours)
# Launching generated kernels on the GPU (and so comparing emulator and GPU
# outputs, and the GPU benchmarks) is not implemented yet: this script says
# so in the summary rather than pretending.
set -uo pipefail

out=${1:?usage: gpu_check.sh OUTDIR}
mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd)
if [ -x "$here/bin/xtune" ]; then          # a bundle
  bin="$here/bin"
  data="$here"
  export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
else                                       # a source tree with build/
  bin="$here/../build"
  data="$here/.."
fi
find_bin() {
  for c in "$bin/$1" "$bin/codegen/cuda/$1" "$bin/codegen/cpu/$1"; do
    [ -x "$c" ] && { echo "$c"; return; }
  done
  echo "$bin/$1"
}
xtune=$(find_bin xtune)
export XTUNE_CPU_WORKER=$(find_bin xtune_cpu_worker)
export XTUNE_CACHE_DIR="$out/kernel-cache"
export XTUNE_SOURCE_DIR="$data"  # where the tests find examples/ and tests/
export xtune data out
summary="$out/summary.txt"
: > "$summary"

step() {  # step NAME LIMIT_SECONDS COMMAND...
  local name=$1 limit=$2
  shift 2
  local start=$SECONDS
  timeout "$limit" "$@" > "$out/$name.log" 2>&1
  local rc=$?
  local verdict=ok
  [ $rc -eq 0 ] || verdict="FAILED (exit $rc)"
  [ $rc -eq 124 ] && verdict="TIMED OUT after ${limit}s"
  echo "$name: $verdict in $((SECONDS - start)) s" | tee -a "$summary"
}

step gpu 30 nvidia-smi -q
step devices 60 "$xtune" devices
{
  echo "driver (cuda):        $(grep -A2 '^cuda:' "$out/devices.log" | sed -n 's/^  device: //p')"
  echo "shipped h200 target:  $(grep -A2 '^cuda_emulator:' "$out/devices.log" | sed -n 's/^  device: //p')"
} > "$out/devices_compare.log"
cat "$out/devices_compare.log" >> "$summary"
step codegen 180 "$(find_bin cuda_codegen_test)"
step emulator 180 "$(find_bin cuda_emulator_test)"
compile_all() {
  for m in "$data"/examples/*.hlo; do
    name=$(basename "$m" .hlo)
    echo "== $m"
    "$xtune" compile "$m" --backend=cuda --xtune_dump_kernels_to="$out/kernels-$name" || return 1
    cat "$out/kernels-$name/manifest.txt" 2>/dev/null
  done
}
emulate_all() {
  for m in "$data"/examples/*.hlo "$data"/tests/data/*.hlo; do
    echo "== $m"
    "$xtune" run "$m" --backend=cuda_emulator --verify || return 1
  done
}
export -f compile_all emulate_all
step compile 120 bash -c compile_all
step emulate 180 bash -c emulate_all
if python3 -c 'import jax' 2>/dev/null; then
  step xla 120 env XLA_FLAGS="--xla_gpu_dump_autotune_results_to=$out/xla_autotune.txt" \
    python3 -c '
import jax, jax.numpy as jnp
print(jax.devices())
a = jnp.ones((512, 512), jnp.float32)
print(jax.jit(lambda x: (x @ x).sum())(a))'
  grep -m1 'device:' "$out/xla_autotune.txt" >> "$summary" 2>/dev/null
else
  echo "xla: skipped (JAX not importable)" >> "$summary"
fi
echo "gpu launch, emulator-vs-GPU comparison, bench/gpu_loop_reduction: not implemented yet" >> "$summary"
! grep -q 'FAILED\|TIMED OUT' "$summary"
