#!/usr/bin/env bash
# tests/fuzz/build.sh [OUTDIR]: builds the two libFuzzer targets with clang
# under ASan and UBSan (every UBSan finding aborts), from the library's
# sources (the targets reach internals the ABI hides), compiled by
# tools/library-objects.sh with the library's own flags plus these:
# OUTDIR/fuzz_abi and OUTDIR/fuzz_peer (OUTDIR defaults to build/fuzz).
# Incremental: an object is rebuilt when its source or any header is newer.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-build/fuzz}
CLANG=${CLANG:-clang-14}
command -v "$CLANG" >/dev/null || CLANG=clang
mkdir -p "$out"
# The fuzzers' own flags, after the library's (library.bzl: the same
# sources, warnings and defines as Bazel's build; -O1 wins over its -O2).
flags=(-std=c11 -O1 -g -fno-omit-frame-pointer
       -fsanitize=address,undefined -fno-sanitize-recover=undefined)

# The documented statuses, from the headers (tools/documented-statuses.py).
table="$out/documented_statuses.h"
if [ ! -f "$table" ] || [ -n "$(find abi/include tools/documented-statuses.py -newer "$table" 2>/dev/null)" ]; then
  /usr/bin/python3 tools/documented-statuses.py --c-table "$table"
fi
# The library's sources, compiled for coverage (libFuzzer's instrumentation).
list=$(tools/library-objects.sh "$out" "$CLANG" "${flags[@]}" -fsanitize=fuzzer-no-link)
mapfile -t objects <<< "$list"
for target in fuzz_abi fuzz_peer; do
  if [ ! -x "$out/$target" ] || [ -n "$(find tests/fuzz/$target.c "${objects[@]}" "$table" -newer "$out/$target" 2>/dev/null)" ]; then
    echo "fuzz/build: linking $out/$target"
    "$CLANG" "${flags[@]}" -D_GNU_SOURCE -fsanitize=fuzzer -Iabi/include -Icore \
      -isystem /usr/local/cuda/include -I"$out" "tests/fuzz/$target.c" "${objects[@]}" \
      -o "$out/$target" -ldl -lpthread -lrt -lm
  fi
done
