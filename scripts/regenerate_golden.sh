#!/usr/bin/env bash
# Rewrites the expected outputs of the fusion golden tests (tests/golden/)
# from the current fusion pass, and the generated CUDA gemm source of
# tests/golden/cuda/. Review `git diff tests/golden` afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."
xtune=build/xtune
for dir in examples tests/data tests/golden; do
  for input in "$dir"/*.hlo; do
    case "$input" in *.fused.hlo) continue ;; esac
    name=$(basename "$input" .hlo)
    if [ "$dir" = tests/golden ]; then
      out="tests/golden/$name.fused.hlo"
    else
      out="tests/golden/$(basename "$dir")_$name.fused.hlo"
    fi
    "$xtune" fuse "$input" --output="$out"
    echo "wrote $out"
  done
done
XTUNE_REGENERATE_GOLDEN=1 build/codegen/cuda/cuda_codegen_test \
  --gtest_filter='CudaGoldenTest.*' > /dev/null
echo "wrote tests/golden/cuda/"
