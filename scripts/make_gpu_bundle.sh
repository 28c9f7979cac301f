#!/usr/bin/env bash
# Packs what a GPU machine without our Debian packages needs to run
# scripts/gpu_check.sh: the stripped xtune binaries and CUDA test programs
# (not the emulator's self-tests, which need no GPU: CI runs them),
# every shared library they load that is not part of glibc or the NVIDIA
# driver (found with ldd), the check script and the example modules.
#
#   scripts/make_gpu_bundle.sh BUILD_DIR OUT_DIR
#
# Writes OUT_DIR/xtune-gpu-bundle/{bin,lib,examples,tests,gpu_check.sh} and
# checks that every library the binaries need resolves inside lib/ (or is
# glibc's) when lib/ is the only folder on the loader path, and that the
# whole bundle stays within 64 MiB.
set -euo pipefail

build=${1:?usage: make_gpu_bundle.sh BUILD_DIR OUT_DIR}
out=${2:?usage: make_gpu_bundle.sh BUILD_DIR OUT_DIR}
root=$(cd "$(dirname "$0")/.." && pwd)
bundle="$out/xtune-gpu-bundle"
limit=$((64 << 20))

programs=(
  "$build/xtune"
  "$build/codegen/cpu/xtune_cpu_worker"
  "$build/codegen/cuda/xtune_gpu_worker"
  "$build/codegen/cuda/cuda_codegen_test"
  "$build/codegen/cuda/cuda_gpu_test"
  "$build/bench/gpu_loop_reduction"
  "$build/bench/gpu_gemm"
)
for p in "${programs[@]}"; do
  [ -x "$p" ] || { echo "make_gpu_bundle: $p is missing: build first (make build)" >&2; exit 1; }
done

rm -rf "$bundle"
mkdir -p "$bundle/bin" "$bundle/lib" "$bundle/tests"
for p in "${programs[@]}"; do
  strip -o "$bundle/bin/$(basename "$p")" "$p"
done

# glibc's own libraries and the driver come from the GPU machine.
system='^(linux-vdso|ld-linux|libc|libm|libdl|libpthread|librt|libutil|libcuda)\.'
for p in "${programs[@]}"; do
  ldd "$p" | awk '/=> \// {print $1, $3}'
done | sort -u | while read -r name path; do
  if [[ ! "$name" =~ $system ]]; then
    cp -L "$path" "$bundle/lib/$name"
    strip --strip-unneeded "$bundle/lib/$name" 2>/dev/null || true
  fi
done

cp "$root/scripts/gpu_check.sh" "$bundle/gpu_check.sh"
cp "$root/bench/gpu_loop_reduction_jax.py" "$root/bench/gpu_gemm_jax.py" "$root/bench/conv_jax.py" \
  "$bundle/"
cp -r "$root/examples" "$bundle/examples"
cp -r "$root/tests/data" "$root/tests/golden" "$root/tests/xla_compat" "$bundle/tests/"
mkdir -p "$bundle/tests/numpy"
cp -r "$root/tests/numpy/cases" "$bundle/tests/numpy/"

# Only lib/ on the loader path: every non-glibc library must come from it.
missing=0
for p in "$bundle"/bin/*; do
  while read -r name arrow path rest; do
    [ "$arrow" = "=>" ] || continue
    [[ "$name" =~ $system ]] && continue
    case "$path" in
      "$bundle"/lib/*) ;;
      *) echo "make_gpu_bundle: $(basename "$p") loads $name from $path, not the bundle" >&2
         missing=1 ;;
    esac
  done < <(env -i LD_LIBRARY_PATH="$bundle/lib" ldd "$p")
done
[ "$missing" -eq 0 ] || exit 1
# And the binaries start with it.
env -i LD_LIBRARY_PATH="$bundle/lib" PATH=/usr/bin:/bin HOME="$out" "$bundle/bin/xtune" devices > /dev/null

size=$(du -sb "$bundle" | cut -f1)
if [ "$size" -gt "$limit" ]; then
  echo "make_gpu_bundle: the bundle is $size bytes, over the 64 MiB limit" >&2
  exit 1
fi
echo "make_gpu_bundle: $bundle ($((size >> 20)) MiB, $(ls "$bundle/lib" | wc -l) libraries)"
