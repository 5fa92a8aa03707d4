#!/usr/bin/env bash
# tests/fuzz/build.sh [OUTDIR]: builds the two libFuzzer targets with clang
# under ASan and UBSan (every UBSan finding aborts), from the library's
# sources (the targets reach internals the ABI hides): OUTDIR/fuzz_abi and
# OUTDIR/fuzz_peer (OUTDIR defaults to build/fuzz). Incremental: an object
# is rebuilt when its source or any header is newer.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-build/fuzz}
CLANG=${CLANG:-clang-14}
command -v "$CLANG" >/dev/null || CLANG=clang
mkdir -p "$out/obj"
flags=(-std=c11 -O1 -g -D_GNU_SOURCE -fno-omit-frame-pointer
       -fsanitize=address,undefined -fno-sanitize-recover=undefined
       -Iabi/include -Icore -Itools -I. -I/usr/local/cuda/include)

# The documented statuses, from the headers (tools/documented-statuses.py).
table="$out/documented_statuses.h"
if [ ! -f "$table" ] || [ -n "$(find abi/include tools/documented-statuses.py -newer "$table" 2>/dev/null)" ]; then
  /usr/bin/python3 tools/documented-statuses.py --c-table "$table"
fi
# The NCCL backend's kernels are not needed here: an empty fatbin.
fatbin="$out/obj/empty_fatbin.c"
[ -f "$fatbin" ] || printf '#include <stddef.h>\nconst unsigned char core_kernels_fatbin[8] = {0};\nconst size_t core_kernels_fatbin_size = 0;\n' > "$fatbin"

newest_header=$(ls -t core/*.h core/host/*.h core/nccl/*.h abi/include/*.h abi/include/ncore/*.h | head -1)
objects=()
stale=()
for src in core/*.c core/host/*.c core/nccl/*.c "$fatbin"; do
  obj="$out/obj/$(echo "${src%.c}" | tr / _).o"
  objects+=("$obj")
  if [ ! -f "$obj" ] || [ "$src" -nt "$obj" ] || [ "$newest_header" -nt "$obj" ]; then
    stale+=("$src")
  fi
done
compile_one() { # src (runs in parallel)
  local src=$1 obj
  obj="$OUT/obj/$(echo "${src%.c}" | tr / _).o"
  "$CLANG" "${FLAGS[@]}" -fsanitize=fuzzer-no-link -c "$src" -o "$obj"
}
if [ "${#stale[@]}" -gt 0 ]; then
  echo "fuzz/build: compiling ${#stale[@]} library sources with $CLANG"
  export -f compile_one
  export OUT="$out" CLANG
  FLAGS_STR="${flags[*]}"
  printf '%s\n' "${stale[@]}" |
    xargs -P "$(nproc)" -I{} bash -c 'FLAGS=('"$FLAGS_STR"'); compile_one "$1"' _ {}
fi
for target in fuzz_abi fuzz_peer; do
  if [ ! -x "$out/$target" ] || [ -n "$(find tests/fuzz/$target.c "${objects[@]}" "$table" -newer "$out/$target" 2>/dev/null)" ]; then
    echo "fuzz/build: linking $out/$target"
    "$CLANG" "${flags[@]}" -fsanitize=fuzzer -I"$out" "tests/fuzz/$target.c" "${objects[@]}" \
      -o "$out/$target" -ldl -lpthread -lrt -lm
  fi
done
