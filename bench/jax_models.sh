#!/bin/bash
# xtune's cpu backend against XLA:CPU (JAX) on the real JAX programs of
# tests/jax/models.py: one JSON line per model with xtune's median run time
# (`xtune run --benchmark=N`, with the configs its own tuning chose), XLA's
# median over N calls of the jitted function with its inputs on the device,
# JAX's dispatch cost (a jitted function of the same arguments computing
# nothing), XLA's figure less that cost, and xtune/XLA on it (below 1.0:
# xtune is faster). Each model's outputs are checked against XLA's first.
#
# usage: bench/jax_models.sh [XTUNE_BINARY] [N]   (defaults: build/xtune, 200)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
xtune=${1:-$root/build/xtune}
runs=${2:-200}
work=${XTUNE_BENCH_WORK:-$root/build/bench/jax_work}
exec "$root/tests/jax/run.sh" "$xtune" "$work" --backends cpu --bench "$runs"
