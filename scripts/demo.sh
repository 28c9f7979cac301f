#!/usr/bin/env bash
# The demo behind `make demo`: fuses each example model, compiles its kernels
# for this CPU, runs them, checks every output against the reference
# evaluator (--verify), times 20 executions, and writes the outputs under
# out/demo/<model>/.
set -euo pipefail
cd "$(dirname "$0")/.."
xtune=build/xtune
for model in examples/*.hlo; do
  name=$(basename "$model" .hlo)
  echo "== $name ($model)"
  start=$(date +%s%N)
  "$xtune" run "$model" --backend=cpu --verify --benchmark=20 \
    --output_dir="out/demo/$name"
  end=$(date +%s%N)
  echo "   $(( (end - start) / 1000000 )) ms, outputs in out/demo/$name/"
done
