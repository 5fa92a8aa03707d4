#!/bin/sh
# Go binding checks, offline (no module proxy; standard library only):
#  0. ncgo.h (with the generated ncgo_gen.h, which tools/check-generated.py
#     holds to gen-ncgo.py's output) compiles against the headers with
#     -Wall -Wextra -Werror;
#  1. go vet of the binding, the conformance runner and the benchmark;
#  2. builds into build/bin (next to ncore-run, linking build/lib/libncore.so
#     through the rpaths $ORIGIN/../lib and this checkout's build/lib):
#     ncore-conformance-go (what conformance/run.py runs for --languages go)
#     ncore-go-orchestrator (the example; carry build/bin and build/lib
#     together to a GPU machine and run it with NCORE_BACKEND=nccl) and
#     ncore-go-tests (this package's tests, `go test -c`; tools/gpu-run.sh
#     runs its NCCL tests);
#  3. go test -v of the binding and the example.
# Needs build/lib/libncore.so (`make lib`). Prints go test's output, then
# "N passed, N failed" counted from its --- PASS / --- FAIL lines, then go
# test's summary lines last. Exit status: non-zero on any failure.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
export GOFLAGS=-mod=mod GOPROXY=off GO111MODULE=on
export GOCACHE="${GOCACHE:-/tmp/ncore-go-cache}"
# cgo finds libncore through pkg-config: the repository's own ncore.pc first.
export PKG_CONFIG_PATH="$root/build/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
# The tests pick the host backend themselves; keep an outer setting out.
unset NCORE_RANK NCORE_NRANKS NCORE_UNIQUE_ID

fail() {
  echo "$1"
  echo "0 passed, 1 failed"
  echo "FAIL	ncore.dev/ncore ($1)"
  exit 1
}

/usr/bin/python3 "$here/gen-ncgo.py" --compile-check ||
  fail "the cgo shim does not compile against the headers (see above)"

for module in bindings/go conformance/runners/go bench/go; do
  (cd "$root/$module" && go vet ./...) || fail "go vet failed in $module"
done

mkdir -p "$root/build/bin"
rpath='-extldflags "-Wl,-rpath,$ORIGIN/../lib"'
(cd "$root/conformance/runners/go" &&
  go build -ldflags "$rpath" -o "$root/build/bin/ncore-conformance-go" .) ||
  fail "building ncore-conformance-go failed"
(cd "$here" &&
  go build -ldflags "$rpath" -o "$root/build/bin/ncore-go-orchestrator" ./examples/orchestrator) ||
  fail "building ncore-go-orchestrator failed"
(cd "$here" && go test -c -ldflags "$rpath" -o "$root/build/bin/ncore-go-tests" .) ||
  fail "building ncore-go-tests failed"

log="$(mktemp /tmp/ncore-go-test.XXXXXX)"
(cd "$here" && go test -count=1 -v -timeout 300s ./...) >"$log" 2>&1
status=$?
# Everything but go test's final summary lines, then the counts (top-level
# tests only: the output of a failed rank, printed inside its test's
# failure, is indented and not counted), then the summary.
grep -v -E '^(ok|FAIL|\?)[[:space:]]' "$log"
passed=$(grep -c -E '^--- PASS' "$log")
failed=$(grep -c -E '^--- FAIL' "$log")
echo "$passed passed, $failed failed"
grep -E '^(ok|FAIL|\?)[[:space:]]' "$log"
rm -f "$log"
exit $status
