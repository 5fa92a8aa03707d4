#!/bin/sh
# Fails when the committed ncore-sys/src/bindings.rs differs from what
# regenerate.sh makes from the current header (run by test.sh and CI).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tmpdir=$(mktemp -d "${TMPDIR:-/tmp}/ncore-bindings.XXXXXX")
trap 'rm -rf "$tmpdir"' EXIT
"$here/regenerate.sh" "$tmpdir/bindings.rs"
if diff -u "$here/ncore-sys/src/bindings.rs" "$tmpdir/bindings.rs" >"$tmpdir/diff"; then
  echo "check-bindings: ncore-sys/src/bindings.rs is up to date"
else
  head -n 60 "$tmpdir/diff"
  echo "check-bindings: ncore-sys/src/bindings.rs is stale; run bindings/rust/regenerate.sh" >&2
  exit 1
fi
