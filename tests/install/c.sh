#!/usr/bin/env bash
# tests/install/c.sh PREFIX WORK: the README's C program (ring_sum.c) as the
# README builds and runs it, outside the repository against the installed
# prefix: with pkg-config, and with the README's CMakeLists.txt through
# `cmake --install` (the installed program keeps its run path to libncore;
# -DNCORE_RUNPATH=OFF leaves it out). Also: the library's ELF facts, a
# DESTDIR staging, the debug log, the launcher's --version and --help.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
prefix=$1 work=$2
. "$here/lib.sh"
mkdir -p "$work/c" "$work/cmake"
# The README's C block is the program (no copy of it here to drift).
readme_block c-program > "$work/c/ring_sum.c"
cp "$work/c/ring_sum.c" "$work/cmake/"
lib=$prefix/lib
real=$("$repo/tools/ncore-version.sh" file)

check soname_chain bash -c "[ \"\$(readlink '$lib/libncore.so')\" = libncore.so.1 ] &&
  [ \"\$(readlink '$lib/libncore.so.1')\" = $real ] && [ -f '$lib/$real' ] && [ ! -L '$lib/$real' ]"
check soname_is_major bash -c "readelf -d '$lib/$real' | grep -q 'SONAME.*\[libncore.so.1\]'"
check needs_no_libstdcxx bash -c "! readelf -d '$lib/$real' | grep -q 'NEEDED.*libstdc++'"
check headers_installed test -f "$prefix/include/ncore.h" -a -f "$prefix/include/ncore/launch.h" -a -f "$prefix/include/ncore/info.h"
check pkg_config_version bash -c "[ \"\$(PKG_CONFIG_PATH='$lib/pkgconfig' pkg-config --modversion ncore)\" = \"$("$repo/tools/ncore-version.sh")\" ]"

# The README: cc ... $(pkg-config ...), ncore-run -n 4 ./ring_sum.
check readme_c_pkg_config_builds_and_runs_4_ranks readme_run "$work/c" "$work/c/readme.log" c-pkg-config
check pkg_config_no_checkout_path bash -c "[ -x '$work/c/ring_sum' ] && ! readelf -d '$work/c/ring_sum' | grep -q '$repo'"

# The README: its CMakeLists.txt; cmake configure, build, install into
# ./installed, run the installed program.
readme_block c-cmake-lists > "$work/cmake/CMakeLists.txt"
check readme_c_cmake_builds_installs_and_runs_4_ranks readme_run "$work/cmake" "$work/cmake/readme.log" c-cmake
check cmake_installed_program_keeps_run_path bash -c "
  readelf -d '$work/cmake/installed/bin/ring_sum' | grep -E 'RUNPATH|RPATH' | grep -q '\[$lib\]'"
check cmake_runpath_off_leaves_it_out outside "$work/cmake" bash -c "
  cmake -S . -B build-off -DCMAKE_PREFIX_PATH='$prefix' -DNCORE_RUNPATH=OFF >/dev/null &&
  cmake --build build-off >/dev/null && cmake --install build-off --prefix installed-off >/dev/null &&
  ! readelf -d installed-off/bin/ring_sum | grep -qE 'RUNPATH|RPATH'"
mkdir -p "$work/cmake/major"
sed 's/find_package(ncore 1.1 /find_package(ncore 2.0 /' "$work/cmake/CMakeLists.txt" > "$work/cmake/major/CMakeLists.txt"
cp "$work/c/ring_sum.c" "$work/cmake/major/"
check cmake_refuses_another_major outside "$work/cmake" bash -c \
  "grep -q 'ncore 2.0' major/CMakeLists.txt && ! cmake -S major -B build-major -DCMAKE_PREFIX_PATH='$prefix' >/dev/null 2>&1"

# A packager's staging: files under DESTDIR, ncore.pc naming the real prefix.
stage=$work/stage
check destdir_staging bash -c "'$repo/tools/install/install.sh' /opt/ncore-test '$stage' >/dev/null &&
  [ -f '$stage/opt/ncore-test/lib/$real' ] && [ ! -e /opt/ncore-test ] &&
  grep -q '^prefix=/opt/ncore-test\$' '$stage/opt/ncore-test/lib/pkgconfig/ncore.pc'"

# NCORE_DEBUG=INFO, one file per rank (%p), naming the backend and why.
logs=$work/logs
mkdir -p "$logs"
check debug_log_per_rank_file outside "$work" env NCORE_DEBUG=INFO \
  NCORE_DEBUG_FILE="$logs/ncore.%h.%p.log" "$prefix/bin/ncore-run" -n 2 "$work/c/ring_sum"
check debug_log_says_backend_and_why bash -c "
  [ \$(ls '$logs' | wc -l) -ge 2 ] &&
  grep -l 'NCORE INFO backend: host (NCORE_BACKEND=host)' '$logs'/*.log | wc -l | grep -qx '[2-9]' &&
  grep -q '\[1\] NCORE INFO comm .*rank 1 of 2, host backend' '$logs'/*.log"
check debug_log_off_by_default bash -c "
  out=\$(cd '$work' && NCORE_BACKEND=host '$prefix/bin/ncore-run' -n 2 '$work/c/ring_sum' 2>&1) &&
  ! echo \"\$out\" | grep -q 'NCORE INFO'"
check debug_log_warns_on_bad_level bash -c "
  cd '$work' && NCORE_BACKEND=host NCORE_DEBUG=LOUD '$prefix/bin/ncore-run' -n 1 '$work/c/ring_sum' 2>&1 |
  grep -q 'NCORE_DEBUG=\"LOUD\" is not WARN or INFO'"

# The README: ncore-run --info, the line for a bug report.
check readme_info_line_runs readme_run "$work/c" "$work/c/info.log" info
check readme_info_line_names_the_backend grep -q 'host backend' "$work/c/info.log"
check launcher_version bash -c "'$prefix/bin/ncore-run' --version | grep -q 'ncore $("$repo/tools/ncore-version.sh")'"
check launcher_help bash -c "'$prefix/bin/ncore-run' --help | grep -q 'usage: ncore-run'"
check launcher_usage_error bash -c "'$prefix/bin/ncore-run' --nranks 2>/dev/null; [ \$? = 2 ]"
# The demo (the README's set-up step) names the launcher as the README runs
# it; started by no launcher it is a job of one rank.
check demo_help_names_the_launcher bash -c "'$repo/build/bin/ncore-demo' --help | grep -q 'build/bin/ncore-run -n N build/bin/ncore-demo' &&
  NCORE_BACKEND=host '$repo/build/bin/ncore-demo' 1 2 > /dev/null"
echo "$passed passed, $failed failed"
