#!/usr/bin/env bash
# tests/race/run.sh: builds tests/race/test_races.c and the library's
# sources with clang -fsanitize=thread into build/race/ and runs it; a
# ThreadSanitizer report fails the run (its summary then says so).
set -uo pipefail
cd "$(dirname "$0")/../.."
out=build/race
CLANG=${CLANG:-clang-14}
command -v "$CLANG" >/dev/null || CLANG=clang
mkdir -p "$out"
printf '#include <stddef.h>\nconst unsigned char core_kernels_fatbin[8] = {0};\nconst size_t core_kernels_fatbin_size = 0;\n' > "$out/empty_fatbin.c"
bin=$out/test_races
if [ ! -x "$bin" ] || [ -n "$(find core abi/include tests/race tests/harness -newer "$bin" 2>/dev/null | head -1)" ]; then
  echo "race: building $bin with $CLANG -fsanitize=thread"
  "$CLANG" -std=c11 -O1 -g -D_GNU_SOURCE -fsanitize=thread -Iabi/include -Icore -I. \
    -I/usr/local/cuda/include -Itests/harness -Itools \
    core/*.c core/host/*.c core/nccl/*.c "$out/empty_fatbin.c" \
    tests/race/test_races.c tests/harness/harness.c tests/harness/multirank.c tests/harness/spawn.c \
    tests/harness/testbuf.c -o "$bin" -ldl -lpthread -lrt -lm ||
    { echo "0 passed, 1 failed"; exit 1; }
fi
# halt_on_error: the first report ends the test it happened in (the
# harness runs each test in a child, which then fails).
NCORE_BACKEND=host TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" "$bin"
