#!/usr/bin/env bash
# The OpenBLAS benchmarks run OpenBLAS's own kernel for this CPU: with
# OPENBLAS_CORETYPE=Haswell set they re-execute without it and print the
# core they print without it; XTUNE_BENCH_KEEP_OPENBLAS_ENV=1 keeps it (and
# the forced core shows, proving the variable is honoured).
# usage: openblas_env_test.sh BENCH...
set -euo pipefail
fail() { echo "FAILED: $*" >&2; exit 1; }
for bench in "$@"; do
  name=$(basename "$bench")
  own=$(env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "$bench" --print_core)
  forced_err=$(mktemp)
  forced=$(OPENBLAS_CORETYPE=Haswell OPENBLAS_L2_SIZE=262144 "$bench" --print_core 2>"$forced_err")
  grep -q "re-running without OPENBLAS_CORETYPE=Haswell OPENBLAS_L2_SIZE=262144" "$forced_err" ||
    fail "$name did not say it re-runs: $(cat "$forced_err")"
  rm -f "$forced_err"
  [ "$forced" = "$own" ] || fail "$name printed $forced with OPENBLAS_CORETYPE=Haswell, $own without"
  kept=$(OPENBLAS_CORETYPE=Haswell XTUNE_BENCH_KEEP_OPENBLAS_ENV=1 "$bench" --print_core 2>/dev/null)
  case "$kept" in
    *'"openblas_core": "Haswell"'*) ;;
    *) fail "$name kept OPENBLAS_CORETYPE=Haswell but printed $kept" ;;
  esac
  echo "ok: $name runs $own whatever OPENBLAS_CORETYPE says"
done
