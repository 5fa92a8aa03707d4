#!/usr/bin/env bash
# Runs the test suites `make test` names, one after another, shows their
# output, and ends with one line summing them: "N passed, N failed, N skipped".
# Each suite is "NAME:COMMAND"; its counts are read from its own runner's
# summary (C/conformance "N passed, N failed", pytest, cargo test, go test).
# A suite whose command fails without a summary counts as one failure.
set -u
total_passed=0 total_failed=0 total_skipped=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for suite in "$@"; do
  name=${suite%%:*}
  command=${suite#*:}
  echo "=== $name: $command"
  start=$(date +%s)
  bash -c "$command" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  passed=0 failed=0 skipped=0 found=0
  # cargo: "test result: ok. 12 passed; 0 failed; 1 ignored" (one per test binary)
  if grep -q "^test result:" "$log"; then
    found=1
    passed=$(grep "^test result:" "$log" | sed -E 's/.* ([0-9]+) passed.*/\1/' | awk '{s+=$1} END {print s+0}')
    failed=$(grep "^test result:" "$log" | sed -E 's/.* ([0-9]+) failed.*/\1/' | awk '{s+=$1} END {print s+0}')
    skipped=$(grep "^test result:" "$log" | sed -E 's/.* ([0-9]+) ignored.*/\1/' | awk '{s+=$1} END {print s+0}')
  else
    # pytest "=== 3 passed, 1 skipped in 2.1s ===" or plain "N passed, N failed[, N skipped]"
    line=$(grep -E "[0-9]+ (passed|failed)" "$log" | tail -n 1)
    if [ -n "$line" ]; then
      found=1
      passed=$(echo "$line" | grep -oE "[0-9]+ passed" | grep -oE "[0-9]+" || echo 0)
      failed=$(echo "$line" | grep -oE "[0-9]+ failed" | grep -oE "[0-9]+" || echo 0)
      skipped=$(echo "$line" | grep -oE "[0-9]+ skipped" | grep -oE "[0-9]+" || echo 0)
    fi
  fi
  passed=${passed:-0} failed=${failed:-0} skipped=${skipped:-0}
  if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi
  if [ "$found" -eq 0 ] && [ "$rc" -eq 0 ]; then passed=1; fi
  echo "=== $name: $passed passed, $failed failed, $skipped skipped ($(( $(date +%s) - start )) s)"
  total_passed=$((total_passed + passed))
  total_failed=$((total_failed + failed))
  total_skipped=$((total_skipped + skipped))
done
echo
echo "$total_passed passed, $total_failed failed, $total_skipped skipped"
[ "$total_failed" -eq 0 ]
