#!/usr/bin/env bash
# tools/header-test.sh [HEADERS]: the public headers are usable from every C
# and C++ dialect a client may build with. It generates one translation unit
# that includes <ncore.h> and initialises every versioned struct with its
# NCORE_*_INIT macro (found in the headers, so a new struct is covered by
# itself), at file scope and in a function, then compiles it with -Wall
# -Wextra -pedantic -Werror as C89, C11, C++11 and C++17; -Wextra's
# -Wmissing-field-initializers refuses an INIT macro that lacks a field.
# It also compiles each subsystem header alone (each includes what it uses)
# and checks that every versioned struct has an INIT macro.
# Prints PASS/FAIL per case and "N passed, N failed"; exit 1 on any failure.
set -uo pipefail
cd "$(dirname "$0")/.."
headers=${1:-abi/include}
work=$(mktemp -d /tmp/ncore-header-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
passed=0 failed=0

record() { # name rc output
  if [ "$2" = 0 ]; then
    echo "PASS $1"
    passed=$((passed + 1))
  else
    echo "FAIL $1:"
    echo "$3" | sed 's/^/    /'
    failed=$((failed + 1))
  fi
}

# The versioned structs and their INIT macros, from the headers.
mapfile -t pairs < <(python3 - "$headers" <<'PY'
import os, re, sys
sys.path.insert(0, "tools")
import ncore_api
headers = sys.argv[1]
text = "".join(open(p).read() for p in ncore_api.header_files(headers))
macros = re.findall(r"#define\s+(NCORE_\w+_INIT)\b", text)
for name, struct in ncore_api.structs(headers).items():
    if not struct.versioned:
        continue
    macro = "NCORE_" + name[len("ncore_"):-len("_t")].upper() + "_INIT"
    print(f"{name} {macro if macro in macros else '-'}")
PY
)

missing="" file_scope="" locals="" sums=""
for pair in "${pairs[@]}"; do
  set -- $pair
  if [ "$2" = - ]; then missing="$missing $1"; continue; fi
  file_scope+="static const $1 file_scope_$1 = $2;"$'\n'
  locals+="  $1 local_$1 = $2;"$'\n'
  sums+="  sum += local_$1.struct_size + file_scope_$1.struct_size;"$'\n'
done
cat > "$work/client.c" <<C
#include <ncore.h>
${file_scope}int ncore_header_test(void);
int ncore_header_test(void) {
${locals}  unsigned long sum = 0;
${sums}  return sum == 0;
}
C
cp "$work/client.c" "$work/client.cpp"

if [ -n "$missing" ]; then
  record every_versioned_struct_has_an_init_macro 1 "no NCORE_<NAME>_INIT for:$missing"
else
  record every_versioned_struct_has_an_init_macro 0 ""
fi

flags=(-Wall -Wextra -pedantic -Werror -fsyntax-only -I"$headers")
for std in c89 c11; do
  out=$(gcc -std=$std "${flags[@]}" "$work/client.c" 2>&1)
  record "ncore_h_and_init_macros_compile_as_$std" $? "$out"
done
for std in c++11 c++17; do
  out=$(g++ -std=$std "${flags[@]}" "$work/client.cpp" 2>&1)
  record "ncore_h_and_init_macros_compile_as_${std/++/xx}" $? "$out"
done

# Each subsystem header on its own.
out=""
rc=0
for h in "$headers"/ncore/*.h; do
  printf "#include <ncore/%s>\nint ncore_header_alone;\n" "$(basename "$h")" > "$work/alone.c"
  if ! o=$(gcc -std=c11 "${flags[@]}" "$work/alone.c" 2>&1); then
    out="$out$(basename "$h"): $o"$'\n'
    rc=1
  fi
done
record each_header_compiles_alone $rc "$out"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
