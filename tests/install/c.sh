#!/usr/bin/env bash
# tests/install/c.sh PREFIX WORK: a C program built against the installed
# prefix with pkg-config and with CMake, run on 3 ranks by the installed
# ncore-run from outside the repository; the library's ELF facts; a DESTDIR
# staging; the debug log; the launcher's --version and --help.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
prefix=$1 work=$2
. "$here/lib.sh"
mkdir -p "$work/c"
cp "$here/c/ring_sum.c" "$here/c/CMakeLists.txt" "$work/c/"
lib=$prefix/lib
real=$("$repo/tools/ncore-version.sh" file)

check soname_chain bash -c "[ \"\$(readlink '$lib/libncore.so')\" = libncore.so.1 ] &&
  [ \"\$(readlink '$lib/libncore.so.1')\" = $real ] && [ -f '$lib/$real' ] && [ ! -L '$lib/$real' ]"
check soname_is_major bash -c "readelf -d '$lib/$real' | grep -q 'SONAME.*\[libncore.so.1\]'"
check needs_no_libstdcxx bash -c "! readelf -d '$lib/$real' | grep -q 'NEEDED.*libstdc++'"
check headers_installed test -f "$prefix/include/ncore.h" -a -f "$prefix/include/ncore/launch.h" -a -f "$prefix/include/ncore/info.h"

export PKG_CONFIG_PATH=$lib/pkgconfig
check pkg_config_version bash -c "[ \"\$(pkg-config --modversion ncore)\" = \"$("$repo/tools/ncore-version.sh")\" ]"
check pkg_config_build outside "$work/c" bash -c \
  'cc -Wall -Werror -o ring_sum_pc ring_sum.c $(pkg-config --cflags --libs ncore)'
check pkg_config_no_checkout_path bash -c "[ -x '$work/c/ring_sum_pc' ] && ! readelf -d '$work/c/ring_sum_pc' | grep -q '$repo'"
check pkg_config_program_runs_3_ranks outside "$work" \
  "$prefix/bin/ncore-run" -n 3 --timeout 120 "$work/c/ring_sum_pc"
unset PKG_CONFIG_PATH

check cmake_configure outside "$work/c" cmake -S . -B build-cmake \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release
check cmake_build outside "$work/c" cmake --build build-cmake
check cmake_program_runs_2_ranks outside "$work" \
  "$prefix/bin/ncore-run" -n 2 --timeout 120 "$work/c/build-cmake/ring_sum"
mkdir -p "$work/c/major"
sed 's/find_package(ncore 1.1 /find_package(ncore 2.0 /' "$here/c/CMakeLists.txt" > "$work/c/major/CMakeLists.txt"
cp "$here/c/ring_sum.c" "$work/c/major/"
check cmake_refuses_another_major outside "$work/c" bash -c \
  "! cmake -S major -B build-major -DCMAKE_PREFIX_PATH='$prefix' >/dev/null 2>&1"

# A packager's staging: files under DESTDIR, ncore.pc naming the real prefix.
stage=$work/stage
check destdir_staging bash -c "'$repo/tools/install/install.sh' /opt/ncore-test '$stage' >/dev/null &&
  [ -f '$stage/opt/ncore-test/lib/$real' ] && [ ! -e /opt/ncore-test ] &&
  grep -q '^prefix=/opt/ncore-test\$' '$stage/opt/ncore-test/lib/pkgconfig/ncore.pc'"

# NCORE_DEBUG=INFO, one file per rank (%p), naming the backend and why.
logs=$work/logs
mkdir -p "$logs"
check debug_log_per_rank_file outside "$work" env NCORE_DEBUG=INFO \
  NCORE_DEBUG_FILE="$logs/ncore.%h.%p.log" "$prefix/bin/ncore-run" -n 2 "$work/c/ring_sum_pc"
check debug_log_says_backend_and_why bash -c "
  [ \$(ls '$logs' | wc -l) -ge 2 ] &&
  grep -l 'NCORE INFO backend: host (NCORE_BACKEND=host)' '$logs'/*.log | wc -l | grep -qx '[2-9]' &&
  grep -q '\[1\] NCORE INFO comm .*rank 1 of 2, host backend' '$logs'/*.log"
check debug_log_off_by_default bash -c "
  out=\$(cd '$work' && NCORE_BACKEND=host '$prefix/bin/ncore-run' -n 2 '$work/c/ring_sum_pc' 2>&1) &&
  ! echo \"\$out\" | grep -q 'NCORE INFO'"
check debug_log_warns_on_bad_level bash -c "
  cd '$work' && NCORE_BACKEND=host NCORE_DEBUG=LOUD '$prefix/bin/ncore-run' -n 1 '$work/c/ring_sum_pc' 2>&1 |
  grep -q 'NCORE_DEBUG=\"LOUD\" is not WARN or INFO'"

check launcher_version bash -c "'$prefix/bin/ncore-run' --version | grep -q 'ncore $("$repo/tools/ncore-version.sh")'"
check launcher_help bash -c "'$prefix/bin/ncore-run' --help | grep -q 'usage: ncore-run'"
check launcher_usage_error bash -c "'$prefix/bin/ncore-run' --nranks 2>/dev/null; [ \$? = 2 ]"
echo "$passed passed, $failed failed"
