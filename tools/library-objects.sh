#!/usr/bin/env bash
# tools/library-objects.sh OUTDIR CC [FLAG...]: compiles the library's
# sources (library.bzl: LIBRARY_SOURCES) with the library's flags
# (LIBRARY_COPTS), then FLAG... (a build's own: sanitizers, -O1), into
# OUTDIR/obj, and prints the objects, one per line (an empty fatbin's too:
# the NCCL backend's kernels are not needed outside Bazel). For the builds
# of the library outside Bazel (tests/fuzz/build.sh, tests/race/run.sh), so
# that they compile what Bazel compiles, as Bazel compiles it. Incremental:
# an object is rebuilt when its source, any library header or the flags
# changed; in parallel.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$1 cc=$2
shift 2
mkdir -p "$out/obj"
# The lists, read from the .bzl (plain Python list literals).
mapfile -t lists < <(/usr/bin/python3 - <<'PY'
import ast
tree = ast.parse(open("library.bzl").read())
values = {node.targets[0].id: ast.literal_eval(node.value)
          for node in tree.body if isinstance(node, ast.Assign)}
print(" ".join(values["LIBRARY_SOURCES"]))
print(" ".join(values["LIBRARY_HEADERS"]))
print(" ".join(values["LIBRARY_COPTS"]))
PY
)
read -ra source_globs <<< "${lists[0]}"
read -ra header_globs <<< "${lists[1]}"
read -ra copts <<< "${lists[2]}"
# CUDA's and NCCL's headers as Bazel's @cuda//:include gives them: system
# headers (nccl.h has declarations -Werror=strict-prototypes refuses).
flags=("${copts[@]}" -Iabi/include -isystem /usr/local/cuda/include "$@")

fatbin="$out/obj/empty_fatbin.c"
[ -f "$fatbin" ] || printf '#include <stddef.h>\nconst unsigned char core_kernels_fatbin[8] = {0};\nconst size_t core_kernels_fatbin_size = 0;\n' > "$fatbin"
# A change of flags rebuilds everything.
stamp="$out/obj/flags"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$cc ${flags[*]}" ]; then
  rm -f "$out"/obj/*.o
  echo "$cc ${flags[*]}" > "$stamp"
fi
# shellcheck disable=SC2206  # the globs expand here, on purpose
sources=(${source_globs[@]})
# shellcheck disable=SC2206
headers=(${header_globs[@]} abi/include/*.h abi/include/ncore/*.h)
newest_header=$(ls -t "${headers[@]}" | head -1)
objects=() stale=()
for src in "${sources[@]}" "$fatbin"; do
  obj="$out/obj/$(echo "${src%.c}" | tr / _).o"
  objects+=("$obj")
  if [ ! -f "$obj" ] || [ "$src" -nt "$obj" ] || [ "$newest_header" -nt "$obj" ]; then
    stale+=("$src")
  fi
done
if [ "${#stale[@]}" -gt 0 ]; then
  echo "library-objects: compiling ${#stale[@]} library sources with $cc" >&2
  compile_one() { # src (runs in parallel)
    local src=$1
    "$CC" "${FLAGS[@]}" -c "$src" -o "$OUT/obj/$(echo "${src%.c}" | tr / _).o"
  }
  export -f compile_one
  export OUT="$out" CC="$cc"
  printf '%s\n' "${stale[@]}" |
    FLAGS_STR="${flags[*]}" xargs -P "$(nproc)" -I{} \
      bash -c 'read -ra FLAGS <<< "$FLAGS_STR"; compile_one "$1"' _ {} >&2
fi
printf '%s\n' "${objects[@]}"
