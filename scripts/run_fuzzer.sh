#!/usr/bin/env bash
# Builds the autotune-results loader's libFuzzer target (the fuzz preset,
# clang with address + undefined sanitizers) and runs it for a fixed time
# (FUZZ_SECONDS, default 60) from a seed corpus of real files: XLA's test
# cache and xtune-written text and binary files. Exits non-zero on a crash.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-60}
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j "${JOBS:-2}"
corpus=build-fuzz/corpus
rm -rf "$corpus"
mkdir -p "$corpus"
# Seeds: one byte choosing the format (odd: text), then a file.
for f in tests/data/test_autotune_cache.textproto tests/fuzz_seeds/*.textproto; do
  { printf '\x01'; cat "$f"; } > "$corpus/$(basename "$f").seed"
done
for f in tests/fuzz_seeds/*.pb; do
  { printf '\x00'; cat "$f"; } > "$corpus/$(basename "$f").seed"
done
echo "fuzzing the autotune results loader for ${seconds} s"
build-fuzz/cache/results_file_fuzzer -max_total_time="$seconds" -rss_limit_mb=2048 \
  -print_final_stats=1 "$corpus" 2>&1 | tail -n 15
