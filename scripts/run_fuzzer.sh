#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ (the fuzz preset: clang, address +
# undefined sanitizers) and runs each from its seeds: the checked-in corpus
# fuzz/corpus/<target>/ (minimised, crashes found included) and real inputs
# from the repository (modules, caches, target specs). Exits non-zero on the
# first finding, whose input libFuzzer writes to build-fuzz/artifacts/.
#
#   FUZZ_SECONDS=N   seconds per target (default 15; CI's budget)
#   FUZZ_RUNS=N      executions per target instead (the long runs of
#                    docs/reliability.md use 1000000)
#   FUZZ_TARGETS="a b"  only these targets
#   FUZZ_MERGE=1     afterwards, merge each run's corpus into
#                    fuzz/corpus/<target>/ (minimised: -merge=1)
set -euo pipefail
cd "$(dirname "$0")/.."
all=(hlo_text_fuzzer hlo_proto_fuzzer fusion_fuzzer results_file_fuzzer
     directory_entry_fuzzer redis_value_fuzzer xla_flags_fuzzer kernel_config_fuzzer
     gpu_target_config_fuzzer npy_fuzzer)
read -r -a targets <<< "${FUZZ_TARGETS:-${all[*]}}"
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j "${JOBS:-2}"

# Seeds from the repository, per target.
seed() {
  local target=$1 dir=$2 f
  case "$target" in
    hlo_text_fuzzer|fusion_fuzzer)
      for f in tests/data/*.hlo tests/golden/*.hlo examples/*.hlo; do cp "$f" "$dir/"; done ;;
    hlo_proto_fuzzer)
      for f in tests/xla_compat/h200/*/*.hlo.pb; do
        [ "$(stat -c %s "$f")" -le 65536 ] && cp "$f" "$dir/$(basename "$(dirname "$f")")_$(basename "$f")"
      done ;;
    results_file_fuzzer)  # one byte choosing the format (odd: text), then a file
      for f in tests/data/test_autotune_cache.textproto tests/fuzz_seeds/*.textproto; do
        { printf '\x01'; cat "$f"; } > "$dir/$(basename "$f").seed"
      done
      for f in tests/fuzz_seeds/*.pb; do
        { printf '\x00'; cat "$f"; } > "$dir/$(basename "$f").seed"
      done ;;
    gpu_target_config_fuzzer)
      cp codegen/cuda/targets/*.txtpb "$dir/" ;;
  esac
  return 0
}

mkdir -p build-fuzz/artifacts
for t in "${targets[@]}"; do
  corpus=build-fuzz/corpus/$t
  rm -rf "$corpus"
  mkdir -p "$corpus"
  [ -d "fuzz/corpus/$t" ] && cp fuzz/corpus/"$t"/* "$corpus/"
  seed "$t" "$corpus"
  if [ -n "${FUZZ_RUNS:-}" ]; then
    budget=(-runs="$FUZZ_RUNS")
    echo "fuzzing $t for $FUZZ_RUNS executions"
  else
    budget=(-max_total_time="${FUZZ_SECONDS:-15}")
    echo "fuzzing $t for ${FUZZ_SECONDS:-15} s"
  fi
  log=build-fuzz/$t.log
  if ! "build-fuzz/fuzz/$t" "${budget[@]}" -rss_limit_mb=2048 -timeout=20 -max_len=65536 \
      -print_final_stats=1 -artifact_prefix="build-fuzz/artifacts/$t-" "$corpus" >"$log" 2>&1; then
    tail -n 40 "$log"
    echo "FAILED: $t found a problem; its input is in build-fuzz/artifacts/" >&2
    exit 1
  fi
  grep -E '^stat::(number_of_executed_units|peak_rss_mb)|^#[0-9]+ +DONE' "$log" | sed "s/^/  $t: /"
  if [ "${FUZZ_MERGE:-0}" = 1 ]; then
    mkdir -p "fuzz/corpus/$t"
    "build-fuzz/fuzz/$t" -merge=1 -rss_limit_mb=2048 -max_len=65536 "fuzz/corpus/$t" "$corpus" \
      >>"$log" 2>&1
  fi
done
echo "fuzzing: ${#targets[@]} targets, no finding"
