#!/usr/bin/env bash
# tests/install/go.sh PREFIX WORK: a user's Go module outside the repository,
# requiring ncore.dev/ncore (the binding copied alone, as `go get` would
# fetch it: a replace points at the copy, GOPROXY is off), built against the
# installed prefix through cgo's pkg-config and run on 2 ranks by the
# installed ncore-run; the binary names no path of the checkout.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
prefix=$1 work=$2
. "$here/lib.sh"
export GOFLAGS=-mod=mod GOPROXY=off GO111MODULE=on
export GOCACHE="${GOCACHE:-/tmp/ncore-go-cache}"
mod=$work/go
mkdir -p "$mod/user" "$mod/ncore"
# The module as a fetch gives it: its tracked files alone.
(cd "$repo" && git ls-files --cached --others --exclude-standard bindings/go | grep -v '_test.go$' |
  while read -r f; do mkdir -p "$mod/ncore/$(dirname "${f#bindings/go/}")"; cp "$f" "$mod/ncore/${f#bindings/go/}"; done)
cp "$here/go/main.go" "$mod/user/"
cat > "$mod/user/go.mod" <<MOD
module example.com/user

go 1.19

require ncore.dev/ncore v1.1.0

replace ncore.dev/ncore => ../ncore
MOD
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
check go_module_builds outside "$mod/user" go build -o user .
unset PKG_CONFIG_PATH
check go_binary_names_no_checkout_path bash -c "[ -x '$mod/user/user' ] && ! grep -q '$repo' '$mod/user/user'"
check go_binary_runs_2_ranks outside "$work" "$prefix/bin/ncore-run" -n 2 --timeout 120 "$mod/user/user"
check go_build_without_ncore_says_pkg_config outside "$mod/user" bash -c \
  "PKG_CONFIG_PATH=/nowhere GOCACHE='$work/go-empty-cache' go build -o user2 . 2>&1 | grep -q 'ncore.pc\|Package ncore was not found'"
echo "$passed passed, $failed failed"
