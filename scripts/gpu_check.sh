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
#   env          where the machine's CUDA libraries are (NVRTC, cuBLASLt)
#   gpu_tests    cuda_gpu_test (CTest label cuda): every example's kernels
#                run on the GPU against the evaluator and the emulator
#                (one "gpu-vs-emulator" line per kernel in the log), the
#                GPU profiler's worker, a faulting kernel failing alone
#   modules      tests/xla_compat/run_modules.py on `cuda`: the library-call
#                (cuBLAS custom-call), FP8 and NumPy-case modules, XLA's
#                own GPU test modules and XLA's H200 dumps (h200/), each run on the GPU with --verify on
#                default configs; then the library-call and FP8 modules
#                tuned on the GPU (autotune level 4) and run with --verify
#   xla_data     with JAX: tests/xla_compat/collect_xla_gpu_dumps.py, XLA's
#                dumps (text and proto) and autotune results for gemms with
#                epilogues, scaled FP8 gemms, convolutions, pooling and a
#                training step on this GPU, packed in OUTDIR/xla_data.tgz
#   xla_compare  tests/xla_compat/compare_with_xla.py: XLA's optimized modules
#                of xla_data run by `cuda` on XLA's inputs, against XLA's
#                outputs
#   bench        bench/gpu_loop_reduction: each kernel's bandwidth against
#                a device-to-device copy; with JAX, XLA's for the same
#                computations (bench_xla), joined in bench_compare.log
#   bench_gemm   bench/gpu_gemm: the generated gemm's best config against
#                cuBLASLt's best algorithm on six gemms (one scaled FP8); with JAX, XLA's
#                times (bench_gemm_xla), joined in bench_compare.log
#   bench_conv   with JAX: bench/conv_jax.py's layers (the CPU conv bench's)
#                timed by XLA on this GPU and written as JAX lowers them;
#                each tuned by `cuda` at level 4 (table row: the chosen
#                config's time against cuDNN's heuristic; the log has every
#                cuDNN algorithm's and implicit gemm's time) and run with
#                --verify
#   tune         every example tuned by `cuda` on this GPU (its cache
#                dumped to OUTDIR/tune-<example>.textproto), then run with
#                that cache loaded and --verify
#   codegen      cuda_codegen_test: NVRTC, the driver, deviceless compiles
#   compile      every example compiled by `cuda` for this GPU, kernels
#                dumped to OUTDIR/kernels-<example>/
#   emulate      every example run by cuda_emulator with --verify
#   emulator     cuda_emulator_test: the emulator's self-tests (source
#                tree only: a bundle leaves them out)
set -uo pipefail

out=${1:?usage: gpu_check.sh OUTDIR}
mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd)
# JAX runs with the machine's own libraries (its libstdc++ is newer than
# the bundle's): jax_python drops the bundle's lib/ from the loader path.
export system_ld_path=${LD_LIBRARY_PATH:-}
jax_python() { LD_LIBRARY_PATH="$system_ld_path" python3 "$@"; }
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
export XTUNE_GPU_WORKER=$(find_bin xtune_gpu_worker)
export XTUNE_CACHE_DIR="$out/kernel-cache"
# NVRTC and cuBLASLt: the toolkit's, else the first copy found elsewhere
# (a Python environment's NVIDIA wheels, say).
find_cuda_lib() {  # find_cuda_lib SONAME -> a path, or nothing
  ldconfig -p | grep -q "$1" && return
  [ -e "/usr/local/cuda/lib64/$1" ] && return
  find /usr /opt -name "$1" 2>/dev/null | head -1
}
: "${XTUNE_NVRTC:=$(find_cuda_lib libnvrtc.so.13)}"
: "${XTUNE_CUBLASLT:=$(find_cuda_lib libcublasLt.so.13)}"
[ -n "$XTUNE_NVRTC" ] && export XTUNE_NVRTC || unset XTUNE_NVRTC
[ -n "$XTUNE_CUBLASLT" ] && export XTUNE_CUBLASLT || unset XTUNE_CUBLASLT
# cuDNN 9: the system's, else a Python wheel's (nvidia/cudnn/lib, found
# next to PyTorch or JAX); its sub-libraries load from its own folder.
: "${XTUNE_CUDNN:=$(find_cuda_lib libcudnn.so.9)}"
[ -n "$XTUNE_CUDNN" ] && export XTUNE_CUDNN || unset XTUNE_CUDNN
export XTUNE_SOURCE_DIR="$data"  # where the tests find examples/ and tests/
export xtune data out here
summary="$out/summary.txt"
: > "$summary"

# The whole check stays under 8 minutes: each step's limit is cut to what
# is left of 450 s, and a step with under 10 s left is skipped.
budget=${GPU_CHECK_SECONDS:-450}
step() {  # step NAME LIMIT_SECONDS COMMAND...
  local name=$1 limit=$2
  shift 2
  # GPU_CHECK_ONLY="name ...": run those steps only (a rerun after fixes).
  if [ -n "${GPU_CHECK_ONLY:-}" ] && [[ " $GPU_CHECK_ONLY " != *" $name "* ]]; then
    return
  fi
  local left=$((budget - SECONDS))
  if [ "$left" -lt 10 ]; then
    echo "$name: SKIPPED (out of time)" | tee -a "$summary"
    return
  fi
  [ "$limit" -gt "$left" ] && limit=$left
  local start=$SECONDS
  timeout "$limit" "$@" > "$out/$name.log" 2>&1
  local rc=$?
  local verdict=ok
  [ $rc -eq 0 ] || verdict="FAILED (exit $rc)"
  [ $rc -eq 124 ] && verdict="TIMED OUT after ${limit}s"
  echo "$name: $verdict in $((SECONDS - start)) s" | tee -a "$summary"
}

cuda_env() {
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv
  ls -l /usr/local/cuda/lib64 2>&1 | grep -E 'nvrtc|cublasLt|cudnn' | head -20
  ldconfig -p | grep -E 'libnvrtc|libcublasLt|libcuda\.' | head
  echo "XTUNE_NVRTC=${XTUNE_NVRTC:-} XTUNE_CUBLASLT=${XTUNE_CUBLASLT:-} XTUNE_CUDNN=${XTUNE_CUDNN:-}"
}
modules_all() {
  local run="$data/tests/xla_compat/run_modules.py" rc=0
  python3 "$run" "$xtune" "$out/modules" cuda --level=0 --timeout=40 --jobs=8 \
    "$data"/tests/numpy/cases/*.hlo \
    "$data"/tests/xla_compat/h200/{default,cublas,before,conv}/*.hlo \
    "$data"/tests/xla_compat/gpu_tests/*.hlo || rc=1
  echo "== tuned on the GPU (level 4)"
  python3 "$run" "$xtune" "$out/modules-tuned" cuda --level=4 --timeout=90 --jobs=4 \
    "$data"/tests/numpy/cases/cublas_calls.hlo "$data"/tests/numpy/cases/fp8.hlo \
    "$data"/tests/numpy/cases/dots.hlo "$data"/tests/xla_compat/h200/cublas/fp8_*.hlo \
    "$data"/tests/xla_compat/h200/conv/*.default.hlo "$data"/tests/xla_compat/cudnn_calls.hlo \
    "$data"/tests/xla_compat/h200/conv/conv_*.before.hlo || rc=1
  return $rc
}
# XLA's cuDNN calls and plain convolutions (the .before dumps: conv
# fusions) tuned on the GPU: each one's table row gives the chosen config
# (a cuDNN algorithm or a generated kernel), its time and the default's
# (cuDNN's heuristic); the log has every candidate's time.
conv_tuning() {
  local rc=0 m
  for m in "$data"/tests/xla_compat/h200/conv/*.default.hlo "$data"/tests/xla_compat/cudnn_calls.hlo \
      "$data"/tests/xla_compat/h200/conv/conv_*.before.hlo; do
    echo "== $m"
    "$xtune" compile "$m" --backend=cuda --xla_gpu_autotune_level=4 \
      --xla_gpu_dump_autotune_logs_to="$out/conv-$(basename "$m" .hlo).log.textproto" || rc=1
  done
  return $rc
}
xla_data() {
  jax_python "$data/tests/xla_compat/collect_xla_gpu_dumps.py" "$out/xla_data"
  local rc=$?
  # The modules, protos and results; not XLA's LLVM IR, PTX or objects.
  (cd "$out" && find xla_data -type f \( -name '*.txt' -o -name '*.pb' \
     -o -name '*.textproto' -o -name '*.log' \) ! -name '*-buffer-assignment*' \
     ! -name '*-live-range*' ! -name '*memory-usage*' | tar -czf xla_data.tgz -T -)
  return $rc
}
xla_compare() {  # xtune needs the bundle's libraries: not jax_python
  python3 "$data/tests/xla_compat/compare_with_xla.py" "$xtune" "$out/xla_data" cuda \
    "$out/xla_compare"
}
export -f cuda_env modules_all conv_tuning xla_data jax_python xla_compare

step gpu 30 nvidia-smi -q
step env 20 bash -c cuda_env
step devices 60 "$xtune" devices
{
  echo "driver (cuda):        $(grep -A2 '^cuda:' "$out/devices.log" | sed -n 's/^  device: //p')"
  echo "shipped h200 target:  $(grep -A2 '^cuda_emulator:' "$out/devices.log" | sed -n 's/^  device: //p')"
} > "$out/devices_compare.log"
cat "$out/devices_compare.log" >> "$summary"
step gpu_tests 120 "$(find_bin cuda_gpu_test)"
grep -c '^gpu-vs-emulator' "$out/gpu_tests.log" | sed 's/^/gpu_tests: kernels compared with the emulator: /' >> "$summary"
grep -c 'bitwise_equal' "$out/gpu_tests.log" | sed 's/^/gpu_tests: of them bitwise equal: /' >> "$summary"
grep -m1 'SKIPPED \] [0-9]* test' "$out/gpu_tests.log" | sed 's/^/gpu_tests: /' >> "$summary"
step modules 150 bash -c modules_all
step conv 150 bash -c conv_tuning
grep 'modules, .* failed' "$out/modules.log" | sed 's/^/modules: /' >> "$summary"
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
tune_all() {
  for m in "$data"/examples/*.hlo; do
    name=$(basename "$m" .hlo)
    echo "== $m"
    "$xtune" compile "$m" --backend=cuda \
      --xla_gpu_dump_autotune_results_to="$out/tune-$name.textproto" || return 1
    "$xtune" run "$m" --backend=cuda --verify \
      --xla_gpu_load_autotune_results_from="$out/tune-$name.textproto" || return 1
  done
}
jax_script() {  # the bench's JAX twin, in a source tree or the bundle
  local script="$data/bench/$1"
  [ -f "$script" ] || script="$here/$1"
  shift
  jax_python "$script" "$@"
}
bench_xla() { jax_script gpu_loop_reduction_jax.py; }
bench_gemm_xla() { jax_script gpu_gemm_jax.py; }
bench_conv() {
  local rc=0 m name
  jax_script conv_jax.py --write-hlo="$out/conv_bench" || return 1
  for m in "$out"/conv_bench/*.hlo; do
    name=$(basename "$m" .hlo)
    echo "== $name"
    "$xtune" compile "$m" --backend=cuda --xla_gpu_autotune_level=4 \
      --xla_gpu_dump_autotune_results_to="$out/conv_bench/$name.textproto" \
      --xla_gpu_dump_autotune_logs_to="$out/conv_bench/$name.log.textproto" || rc=1
    "$xtune" run "$m" --backend=cuda --verify \
      --xla_gpu_load_autotune_results_from="$out/conv_bench/$name.textproto" || rc=1
  done
  return $rc
}
export -f compile_all emulate_all tune_all jax_script bench_xla bench_gemm_xla bench_conv
have_jax=0
jax_python -c 'import jax' 2>/dev/null && have_jax=1
if [ $have_jax = 1 ]; then
  step xla_data 150 bash -c xla_data
  grep -m1 'device:' "$out/xla_data/default/autotune_results.textproto" >> "$summary" 2>/dev/null
  grep -h 'FAILED' "$out/xla_data.log" | sed 's/^/xla_data: /' >> "$summary"
  step xla_compare 90 bash -c xla_compare
  grep -h 'outputs compared' "$out/xla_compare.log" | sed 's/^/xla_compare: /' >> "$summary"
else
  echo "xla_data: skipped (JAX not importable)" >> "$summary"
fi
step bench_gemm 150 "$(find_bin gpu_gemm)"
[ $have_jax = 1 ] && step bench_gemm_xla 90 bash -c bench_gemm_xla
[ $have_jax = 1 ] && step bench_conv 150 bash -c bench_conv
step tune 120 bash -c tune_all
step bench 90 "$(find_bin gpu_loop_reduction)"
[ $have_jax = 1 ] && step bench_xla 60 bash -c bench_xla
step codegen 90 "$(find_bin cuda_codegen_test)"
step compile 60 bash -c compile_all
step emulate 60 bash -c emulate_all
# (Not in a bundle: the emulator's self-tests need no GPU.)
[ -x "$(find_bin cuda_emulator_test)" ] && step emulator 60 "$(find_bin cuda_emulator_test)"
python3 - "$out" <<'PY' >> "$summary" 2>/dev/null
import json, sys, os
out = sys.argv[1]
def lines(name):
    p = os.path.join(out, name)
    if not os.path.exists(p): return {}
    r = {}
    for l in open(p):
        if l.startswith("{"):
            d = json.loads(l); r[d["fusion"]] = d
    return r
ours, xla = lines("bench.log"), lines("bench_xla.log")
gemm, gemm_xla = lines("bench_gemm.log"), lines("bench_gemm_xla.log")
with open(os.path.join(out, "bench_compare.log"), "w") as f:
    for name, d in ours.items():
        x = xla.get(name, {})
        line = (f"bench: {name}: xtune {d['xtune_gbps']} GB/s, copy {d['copy_gbps']} GB/s, "
                f"ratio {d['ratio']} (target {d['target']}), best {d['best_config']}"
                + (f"; XLA {x['xla_gbps']} GB/s" if x else ""))
        print(line); f.write(line + "\n")
    for name, d in gemm.items():
        x = gemm_xla.get(name, {})
        line = (f"bench_gemm: {name}: xtune {d['xtune_tflops']} TFLOP/s ({d['xtune_config']}), "
                f"cuBLASLt {d['cublaslt_tflops']} TFLOP/s, ratio {d['ratio']}, "
                f"tuning {d['tuning_seconds']} s"
                + (f"; XLA {x['xla_tflops']} TFLOP/s" if x else ""))
        print(line); f.write(line + "\n")
PY
echo "not yet: wgmma/TMA in the generated gemm (Hopper warpgroup MMA); cuDNN engines (its frontend API, what XLA tunes today) as candidates" >> "$summary"
! grep -q 'FAILED\|TIMED OUT\|SKIPPED' "$summary"
