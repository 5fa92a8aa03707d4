#!/usr/bin/env bash
# tools/abi-check-selftest.sh: shows that tools/abi-check can fail. It builds a
# tiny copy of libncore (one public function over a public struct, compiled
# from a copy of abi/include with the real version script), records its
# baseline with abidw, then checks:
#   - the unchanged copy passes;
#   - a copy that only adds a function passes (additions are compatible);
#   - a copy whose header lost a field of ncore_wait_signal_desc_t FAILS;
#   - a copy exporting a symbol that is not ncore_* FAILS;
#   - the real build/lib/libncore.so passes against abi/baseline/ (when both exist).
# Prints PASS/FAIL per case and "N passed, N failed"; exit 1 on any failure.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=$(mktemp -d /tmp/ncore-abi-selftest.XXXXXX)
trap 'rm -rf "$work"' EXIT
passed=0 failed=0

# Records one case's result. expect: pass|fail; the checker's exit status.
check_case() { # name expect command...
  local name=$1 expect=$2; shift 2
  local out rc
  out=$("$@" 2>&1); rc=$?
  if { [ "$expect" = pass ] && [ $rc -eq 0 ]; } || { [ "$expect" = fail ] && [ $rc -ne 0 ]; }; then
    echo "PASS $name (checker exit $rc)"
    passed=$((passed + 1))
  else
    echo "FAIL $name: expected the checker to $expect, it exited $rc:"
    echo "$out" | sed 's/^/    /'
    failed=$((failed + 1))
  fi
}

# Builds the tiny library $1 from headers dir $2, with extra cc flags after.
build_tiny() { # out.so headers_dir [cflags...]
  local out=$1 headers=$2; shift 2
  gcc -std=c11 -g -O0 -shared -fPIC -fvisibility=hidden -I"$headers" "$@" \
      "$work/tiny.c" -o "$out" -Wl,--version-script="$root/abi/ncore.map" \
      -Wl,-soname,libncore.so.1
}

cp -r abi/include "$work/headers"
cp -r abi/include "$work/headers_field_removed"
sed -i '/int32_t context;/d' "$work/headers_field_removed/ncore/onesided.h"
if cmp -s abi/include/ncore/onesided.h "$work/headers_field_removed/ncore/onesided.h"; then
  echo "FAIL setup: could not remove ncore_wait_signal_desc_t.context from the header copy"
  echo "0 passed, 1 failed"; exit 1
fi
cat > "$work/tiny.c" <<'C'
#include <ncore.h>
/* The one public function of the tiny library; its parameter carries the
 * struct whose layout the test changes. */
ncore_status_t ncore_wait_signal_desc_init(ncore_wait_signal_desc_t *desc) {
  desc->struct_size = (uint32_t)sizeof *desc;
  return NCORE_OK;
}
#ifdef ADD_FUNCTION
NCORE_API int ncore_selftest_added(void) { return 1; }
#endif
#ifdef LEAK_SYMBOL
__attribute__((visibility("default"))) int leaked_helper(void) { return 2; }
#endif
C
C_MAP=$work/leaky.map
printf 'NCORE_1.0 { global: ncore_*; leaked_*; local: *; };\n' > "$C_MAP"

build_tiny "$work/base.so" "$work/headers" &&
build_tiny "$work/added.so" "$work/headers" -DADD_FUNCTION &&
build_tiny "$work/removed.so" "$work/headers_field_removed" &&
gcc -std=c11 -g -shared -fPIC -fvisibility=hidden -I"$work/headers" -DLEAK_SYMBOL \
    "$work/tiny.c" -o "$work/leaky.so" -Wl,--version-script="$C_MAP" &&
abidw --no-corpus-path --headers-dir "$work/headers" --out-file "$work/base.abi" "$work/base.so" ||
  { echo "FAIL setup: the tiny libraries do not build"; echo "$passed passed, $((failed + 1)) failed"; exit 1; }

check_case abi_check_accepts_unchanged_library pass tools/abi-check "$work/base.so" "$work/base.abi" "$work/headers"
check_case abi_check_accepts_added_function pass tools/abi-check "$work/added.so" "$work/base.abi" "$work/headers"
check_case abi_check_rejects_removed_struct_field fail tools/abi-check "$work/removed.so" "$work/base.abi" "$work/headers_field_removed"
check_case abi_check_rejects_unprefixed_export fail tools/abi-check "$work/leaky.so" "$work/base.abi" "$work/headers"
if [ -f build/lib/libncore.so ] && [ -f abi/baseline/libncore.abi ]; then
  check_case abi_check_accepts_built_libncore pass tools/abi-check
else
  echo "FAIL abi_check_accepts_built_libncore: build/lib/libncore.so or abi/baseline/libncore.abi is missing"
  failed=$((failed + 1))
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
