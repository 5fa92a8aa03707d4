#!/bin/sh
# Go binding checks: go vet, then go test -v, offline (no module proxy, no
# dependencies beyond the standard library). Needs build/lib/libncore.so
# (`make lib`). Prints go test's output, then "N passed, N failed" counted
# from its --- PASS / --- FAIL lines, then go test's summary line last.
# Exit status: go test's.
set -u
cd "$(dirname "$0")"
export GOFLAGS=-mod=mod GOPROXY=off GO111MODULE=on
export GOCACHE="${GOCACHE:-/tmp/ncore-go-cache}"
# The tests pick the host backend themselves; keep an outer setting out.
unset NCORE_RANK NCORE_NRANKS NCORE_UNIQUE_ID

if ! go vet ./...; then
  echo "go vet failed"
  echo "0 passed, 1 failed"
  echo "FAIL	ncore.dev/ncore (vet)"
  exit 1
fi

log="$(mktemp /tmp/ncore-go-test.XXXXXX)"
go test -count=1 -v -timeout 600s ./... >"$log" 2>&1
status=$?
# Everything but go test's final summary lines, then the counts (top-level
# tests only: the output of a failed rank, printed inside its test's
# failure, is indented and not counted), then the summary.
grep -v -E '^(ok|FAIL)[[:space:]]' "$log"
passed=$(grep -c -E '^--- PASS' "$log")
failed=$(grep -c -E '^--- FAIL' "$log")
echo "$passed passed, $failed failed"
grep -E '^(ok|FAIL)[[:space:]]' "$log"
rm -f "$log"
exit $status
