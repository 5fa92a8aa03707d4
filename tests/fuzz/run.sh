#!/usr/bin/env bash
# tests/fuzz/run.sh [SECONDS] [WORKERS]: builds the fuzz targets
# (tests/fuzz/build.sh), replays every committed input (corpus/ and
# regressions/: a deterministic test each), then fuzzes each target for
# SECONDS (default 40; 0 = replay only) starting from its corpus, new inputs
# going to a scratch copy (build/fuzz/corpus-*), crashes to build/fuzz/.
# Prints "N passed, N failed": one test per replayed folder (all its inputs
# without a finding) and per fuzzing run without a finding. WORKERS (default 1) parallel libFuzzer jobs each.
#
# FUZZ_OUT (default build/fuzz) is where it builds and writes. The
# one-hour run recorded in docs/reliability.md (30 minutes per target):
#   FUZZ_OUT=build/fuzz-long nice -n 19 tests/fuzz/run.sh 1800
set -uo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-40}
workers=${2:-1}
out=${FUZZ_OUT:-build/fuzz}
mkdir -p "$out" && out=$(cd "$out" && pwd)  # absolute: the fuzzers run inside it
tests/fuzz/build.sh "$out" || { echo "0 passed, 1 failed"; exit 1; }
# allocator_may_return_null: a huge allocation the library asks for is its
# SYSTEM error, not a crash; leaks are findings (LeakSanitizer per input).
export ASAN_OPTIONS=${ASAN_OPTIONS:-allocator_may_return_null=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
passed=0 failed=0
for target in abi peer; do
  bin=$out/fuzz_$target
  for dir in tests/fuzz/corpus/$target tests/fuzz/regressions/$target; do
    inputs=$(find "$dir" -type f ! -name README.md | sort)
    [ -z "$inputs" ] && continue
    n=$(echo "$inputs" | wc -l)
    if "$bin" -runs=0 $inputs > "$out/replay-$target.log" 2>&1; then
      passed=$((passed + 1))
      echo "ok replay $dir ($n inputs)"
    else
      failed=$((failed + 1))
      echo "FAIL replay $dir:"; tail -40 "$out/replay-$target.log"
    fi
  done
  [ "$seconds" -gt 0 ] || continue
  scratch=$out/corpus-$target
  mkdir -p "$scratch"
  cp -n tests/fuzz/corpus/$target/* "$scratch"/ 2>/dev/null || true
  log=$out/fuzz-$target.log
  start=$SECONDS
  # libFuzzer writes each job's log (fuzz-N.log) into the current
  # directory: run it in the output folder, with absolute paths.
  if (cd "$out" && exec "$bin" -max_total_time="$seconds" -timeout=20 \
        -rss_limit_mb=4096 -max_len=2048 -jobs="$workers" -workers="$workers" \
        -print_final_stats=1 -artifact_prefix="./" "corpus-$target") > "$log" 2>&1; then
    passed=$((passed + 1))
    echo "ok fuzz_$target: $((SECONDS - start)) s without a finding"
  else
    failed=$((failed + 1))
    echo "FAIL fuzz_$target: a finding (reproducer in $out/, log $log)"
    grep -E "ERROR|runtime error|SUMMARY|returned|left|Test unit" "$log" | head -20
  fi
  # The stats, for the record (docs/reliability.md).
  grep -hE "stat::number_of_executed_units|stat::peak_rss_mb|cov: " "$log" "$out"/fuzz-*.log 2>/dev/null \
    | grep -E "stat::|DONE|INITED" | tail -4 | sed "s/^/fuzz_$target: /"
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
