#!/usr/bin/env bash
# tests/race/run.sh: builds tests/race/test_races.c and the library's
# sources (tools/library-objects.sh: the library's own sources and flags)
# with clang -fsanitize=thread into build/race/ and runs it; a
# ThreadSanitizer report fails the run (its summary then says so).
set -uo pipefail
cd "$(dirname "$0")/../.."
out=build/race
CLANG=${CLANG:-clang-14}
command -v "$CLANG" >/dev/null || CLANG=clang
mkdir -p "$out"
# The library as Bazel compiles it (library.bzl's sources and flags,
# tools/library-objects.sh), under ThreadSanitizer; then the test.
flags=(-std=c11 -O1 -g -fsanitize=thread)
list=$(tools/library-objects.sh "$out" "$CLANG" "${flags[@]}") ||
  { echo "0 passed, 1 failed"; exit 1; }
mapfile -t objects <<< "$list"
bin=$out/test_races
if [ ! -x "$bin" ] || [ -n "$(find "${objects[@]}" tests/race tests/harness -newer "$bin" 2>/dev/null | head -1)" ]; then
  echo "race: building $bin with $CLANG -fsanitize=thread"
  "$CLANG" "${flags[@]}" -D_GNU_SOURCE -Iabi/include -Icore -I. -Itests/harness \
    tests/race/test_races.c tests/harness/harness.c tests/harness/multirank.c \
    tests/harness/spawn.c tests/harness/testbuf.c "${objects[@]}" -o "$bin" \
    -ldl -lpthread -lrt -lm ||
    { echo "0 passed, 1 failed"; exit 1; }
fi
# halt_on_error: the first report ends the test it happened in (the
# harness runs each test in a child, which then fails).
NCORE_BACKEND=host TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" "$bin"
