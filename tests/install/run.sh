#!/usr/bin/env bash
# tests/install/run.sh [LANGUAGES]: ncore as a user gets it, from the
# README's commands as written (tests/install/readme.py extracts the blocks
# README.md tags for the tests). Runs the README's set-up command (make
# demo), installs with its install command into a fresh prefix, then for
# each language (default: c python rust go) builds the README's first
# program outside the repository against that install only and runs it on
# several ranks (host backend): tests/install/<language>.sh.
# Prints PASS/FAIL per check and "N passed, N failed"; exit 1 on a failure.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
work=$(mktemp -d /tmp/ncore-install-test.XXXXXX)
[ -n "${KEEP_WORK:-}" ] || trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
passed=0 failed=0
. "$here/lib.sh"
# The set-up step, from the checkout: make demo (the library, the launcher,
# the demo on 4 ranks).
run_setup() { echo setup >> "$work/readme-blocks-run"; cd "$repo" && timeout 600 bash -euo pipefail -c "$(/usr/bin/python3 "$readme" show setup)"; }
check readme_setup_runs_the_demo run_setup
if ! out=$(cd "$repo" && bash -euo pipefail -c "$(/usr/bin/python3 "$readme" show install --set "PREFIX=$prefix")" 2>&1) ||
   [ ! -f "$prefix/lib/pkgconfig/ncore.pc" ]; then
  echo "FAIL install: the README's install block into $prefix:"
  echo "$out" | tail -20 | sed 's/^/    /'
  echo "$passed passed, $((failed + 1)) failed"
  exit 1
fi
echo "PASS install: the README's install block into $prefix"
echo install >> "$work/readme-blocks-run"
passed=$((passed + 1))
for lang in ${1:-c python rust go}; do
  echo "== $lang"
  out=$(bash "$here/$lang.sh" "$prefix" "$work" 2>&1)
  echo "$out" | grep -v '^[0-9]* passed, [0-9]* failed$'
  read -r p f < <(echo "$out" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' | tail -1)
  if [ -z "${p:-}" ]; then p=0 f=1; echo "FAIL $lang: no summary"; fi
  passed=$((passed + p)) failed=$((failed + f))
  unset p f
done
# Every block the README tags for the tests was run by one (all languages).
if [ -z "${1:-}" ]; then
  check readme_every_tagged_block_ran bash -c "unrun=\$(/usr/bin/python3 '$readme' list |
    grep -vxF -f '$work/readme-blocks-run'); [ -z \"\$unrun\" ] || { echo \"never run: \$unrun\"; exit 1; }"
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
