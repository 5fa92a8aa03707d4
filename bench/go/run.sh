#!/usr/bin/env bash
# Per-call overhead of the Go binding against C, for calls that move no data
# (see README.md). Builds both programs against build/lib and runs them.
# A benchmark, not a test: it never fails on speed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
lib=${NCORE_LIB_DIR:-$root/build/lib}
export GOFLAGS=-mod=mod GOPROXY=off GOCACHE="${GOCACHE:-/tmp/ncore-go-cache}"
# cgo finds libncore through pkg-config (bindings/go/cgo.go).
export PKG_CONFIG_PATH="$lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
cc -O2 -o "$here/overhead_c" "$root/bench/c/overhead.c" -I"$root/abi/include" -L"$lib" -lncore -Wl,-rpath,"$lib"
(cd "$here" && go build -o "$here/overhead_go" .)
echo "C baseline (ns per call):"
"$here/overhead_c"
"$here/overhead_go"
