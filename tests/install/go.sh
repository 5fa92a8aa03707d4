#!/usr/bin/env bash
# tests/install/go.sh PREFIX WORK: the README's Go steps as written: a user's
# module outside the repository whose go.mod is the README's (require
# ncore.dev/ncore, a replace onto the checkout's bindings/go), main.go the
# README's program, built with `go build` against the installed prefix
# through cgo's pkg-config (the README's environment) and run on 4 ranks by
# the installed ncore-run: the binary finds libncore.so.1 through the run
# path ncore.pc gives. Also: the build's message when ncore cannot be found.
# No network: GOPROXY=off.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
prefix=$1 work=$2
. "$here/lib.sh"
unset GOFLAGS
export GOPROXY=off GO111MODULE=on
# A fresh machine's build cache: Go 1.19 keys a cgo package's cache entry
# without pkg-config's --libs, so a shared cache would hand this prefix's
# build the run path of an earlier test's (deleted) prefix (README: go clean).
export GOCACHE=$work/go-cache
user=$work/go/user
mkdir -p "$user"

# The README: go.mod, main.go; go build; ncore-run -n 4.
readme_block go-mod > "$user/go.mod"
cp "$here/go/main.go" "$user/"
check readme_go_module_builds_and_runs_4_ranks readme_run "$user" "$work/go/run.log" go
check go_binary_run_path_is_the_prefix bash -c "[ -x '$user/ring-sum' ] &&
  readelf -d '$user/ring-sum' | grep -E 'RUNPATH|RPATH' | grep -q '\[$prefix/lib\]' &&
  grep -q 'rank 3 of 4: sum 10\$' '$work/go/run.log'"
check go_build_without_ncore_says_pkg_config outside "$user" bash -c \
  "PKG_CONFIG_PATH=/nowhere GOCACHE='$work/go-empty-cache' go build -o ring-sum-2 . 2>&1 | grep -q 'ncore.pc\|Package ncore was not found'"
echo "$passed passed, $failed failed"
