#!/usr/bin/env bash
# The demo behind `make demo`.
#  1. cold: compiles every example with an empty autotune cache — every
#     fusion is tuned — dumping the results into one cache file (merge mode);
#  2. warm: compiles them again loading that file — nothing is tuned;
#  3. runs each example with the cache loaded, checks every output against
#     the reference evaluator (--verify), times 20 executions, and writes the
#     outputs under out/demo/<model>/.
# Prints the cold and warm compile times and the cache hit counts.
set -euo pipefail
cd "$(dirname "$0")/.."
xtune=build/xtune
mkdir -p out/demo
cache=out/demo/autotune_cache.textproto
rm -f "$cache" "$cache.lock"

ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
summary() { grep -o 'autotuning: .*' | sed 's/^autotuning: //'; }

echo "== cold compile: tune every fusion, dump into $cache"
cold_total=0
for model in examples/*.hlo; do
  start=$(date +%s%N)
  line=$("$xtune" compile "$model" --xla_gpu_dump_autotune_results_to="$cache" \
         --xtune_dump_autotune_results_merge 2>&1 >/dev/null | summary)
  t=$(ms "$start"); cold_total=$((cold_total + t))
  printf '   %-14s %6d ms  %s\n' "$(basename "$model" .hlo)" "$t" "$line"
done

echo "== warm compile: load $cache"
warm_total=0
hits=0
for model in examples/*.hlo; do
  start=$(date +%s%N)
  line=$("$xtune" compile "$model" --xla_gpu_load_autotune_results_from="$cache" \
         2>&1 >/dev/null | summary)
  t=$(ms "$start"); warm_total=$((warm_total + t))
  h=$(echo "$line" | sed -n 's/.*: \([0-9]*\) from the cache.*/\1/p')
  hits=$((hits + ${h:-0}))
  printf '   %-14s %6d ms  %s\n' "$(basename "$model" .hlo)" "$t" "$line"
done
echo "== cold ${cold_total} ms, warm ${warm_total} ms ($(awk "BEGIN{printf \"%.1f\", $cold_total/($warm_total>0?$warm_total:1)}")x faster), ${hits} cache hits"
"$xtune" cache stats "$cache"

echo "== run every example with the cache loaded"
for model in examples/*.hlo; do
  name=$(basename "$model" .hlo)
  echo "-- $name ($model)"
  "$xtune" run "$model" --backend=cpu --verify --benchmark=20 \
    --xla_gpu_load_autotune_results_from="$cache" --output_dir="out/demo/$name"
done
