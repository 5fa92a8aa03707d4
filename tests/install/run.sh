#!/usr/bin/env bash
# tests/install/run.sh [LANGUAGES]: ncore as a user gets it. Installs `make
# lib`'s build into a fresh prefix (tools/install/install.sh), then for each
# language (default: c python rust go) builds a program outside the
# repository against that install only and runs it on several ranks (host
# backend) from outside the repository: tests/install/<language>.sh.
# Prints PASS/FAIL per check and "N passed, N failed"; exit 1 on a failure.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
work=$(mktemp -d /tmp/ncore-install-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
passed=0 failed=0
if ! "$repo/tools/install/install.sh" "$prefix" >/dev/null; then
  echo "FAIL install: tools/install/install.sh $prefix"
  echo "0 passed, 1 failed"
  exit 1
fi
echo "PASS install into $prefix"
passed=1
for lang in ${1:-c python rust go}; do
  echo "== $lang"
  out=$(bash "$here/$lang.sh" "$prefix" "$work" 2>&1)
  echo "$out" | grep -v '^[0-9]* passed, [0-9]* failed$'
  read -r p f < <(echo "$out" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' | tail -1)
  if [ -z "${p:-}" ]; then p=0 f=1; echo "FAIL $lang: no summary"; fi
  passed=$((passed + p)) failed=$((failed + f))
  unset p f
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
