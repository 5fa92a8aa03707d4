#!/usr/bin/env bash
# abi-check.sh [LIBRARY] [BASELINE]: fails if LIBRARY's ABI is incompatible
# with the released one (abidiff against abi/baseline/libncore.abi, public
# headers only), or if it exports anything but versioned ncore_* symbols.
# Prints "N passed, N failed" for the two checks.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
lib=${1:-$root/build/lib/libncore.so}
baseline=${2:-$root/abi/baseline/libncore.abi}
passed=0 failed=0

bad=$(nm -D --defined-only "$lib" | awk '{print $3}' | grep -v '^NCORE_1\.[0-9]*$' \
      | grep -vE '^ncore_[a-z0-9_]+@@NCORE_1\.[0-9]+$' || true)
if [ -z "$bad" ]; then
  echo "ok exported symbols: $(nm -D --defined-only "$lib" | grep -c ' ncore_') ncore_* symbols, all versioned"
  passed=$((passed + 1))
else
  echo "FAIL exported symbols: unexpected or unversioned:"; echo "$bad" | head -20
  failed=$((failed + 1))
fi

abidiff --no-added-syms --headers-dir2 "$root/abi/include" "$baseline" "$lib" > /tmp/abidiff.$$ 2>&1
rc=$?
# abidiff's status is a bit field: 4 = ABI change, 8 = incompatible change.
if [ $((rc & 8)) -ne 0 ] || [ $((rc & 1)) -ne 0 ] || [ $((rc & 2)) -ne 0 ]; then
  echo "FAIL abidiff against $(basename "$baseline") (status $rc):"; cat /tmp/abidiff.$$
  failed=$((failed + 1))
elif [ $((rc & 4)) -ne 0 ]; then
  echo "FAIL abidiff: the ABI changed (status $rc); if that is intended and compatible, regenerate with make abi-baseline:"
  cat /tmp/abidiff.$$
  failed=$((failed + 1))
else
  echo "ok abidiff: compatible with $(basename "$baseline")"
  passed=$((passed + 1))
fi
rm -f /tmp/abidiff.$$
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
