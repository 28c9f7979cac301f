#!/usr/bin/env bash
# The demo behind `make demo`: computes each example model with the
# reference evaluator and writes its outputs under out/demo/<model>/.
set -euo pipefail
cd "$(dirname "$0")/.."
xtune=build/xtune
for model in examples/*.hlo; do
  name=$(basename "$model" .hlo)
  echo "== $name ($model)"
  start=$(date +%s%N)
  "$xtune" run "$model" --backend=interpreter --output_dir="out/demo/$name"
  end=$(date +%s%N)
  echo "   $(( (end - start) / 1000000 )) ms, outputs in out/demo/$name/"
done
