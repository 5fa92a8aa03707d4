#!/usr/bin/env bash
# tools/install/install.sh PREFIX [DESTDIR]: installs what `make lib` built
# (make install runs it), as a distribution package would lay it out:
#   PREFIX/lib/libncore.so.X.Y.Z, libncore.so.1 -> it, libncore.so -> libncore.so.1
#   PREFIX/include/ncore.h, PREFIX/include/ncore/*.h
#   PREFIX/bin/ncore-run
#   PREFIX/lib/pkgconfig/ncore.pc               (pkg-config ncore)
#   PREFIX/lib/cmake/ncore/ncoreConfig.cmake    (find_package(ncore): ncore::ncore)
#   PREFIX/lib/cmake/ncore/ncoreConfigVersion.cmake
# DESTDIR stages the files (packaging): they land in DESTDIR/PREFIX/... while
# ncore.pc names PREFIX. LIBDIR (default PREFIX/lib) moves the library and
# the two package files. ncore.pc: tools/install/ncore-pc.sh.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
prefix=${1:?usage: install.sh PREFIX [DESTDIR]}
destdir=${2:-}
case "$prefix" in
  /*) ;;
  *) echo "install.sh: PREFIX must be an absolute path, not $prefix" >&2; exit 2 ;;
esac
prefix=${prefix%/}
libdir=${LIBDIR:-$prefix/lib}
version=$("$repo/tools/ncore-version.sh" version)
real=$("$repo/tools/ncore-version.sh" file)
for f in "$repo/build/lib/$real" "$repo/build/bin/ncore-run"; do
  [ -f "$f" ] || { echo "install.sh: $f is missing: run 'make lib' first" >&2; exit 1; }
done

lib=$destdir$libdir
install -d "$lib" "$lib/pkgconfig" "$lib/cmake/ncore" \
  "$destdir$prefix/include/ncore" "$destdir$prefix/bin"
install -m 755 "$repo/build/lib/$real" "$lib/$real"
ln -sfn "$real" "$lib/libncore.so.1"
ln -sfn libncore.so.1 "$lib/libncore.so"
install -m 644 "$repo/abi/include/ncore.h" "$destdir$prefix/include/ncore.h"
install -m 644 "$repo"/abi/include/ncore/*.h "$destdir$prefix/include/ncore/"
install -m 755 "$repo/build/bin/ncore-run" "$destdir$prefix/bin/ncore-run"

# The CMake files find the prefix from their own place, so a staged or moved
# tree keeps working; they need the path from the prefix to the library.
libdir_rel=${libdir#"$prefix"/}
[ "$libdir_rel" = "$libdir" ] && libdir_rel=$libdir
cmake_up=$(echo "$libdir_rel/cmake/ncore" | sed 's|[^/][^/]*|..|g')
"$repo/tools/install/ncore-pc.sh" "$prefix" "$libdir" "$prefix/include" > "$lib/pkgconfig/ncore.pc"
sed -e "s|@LIBDIR_REL@|$libdir_rel|g" -e "s|@PREFIX_FROM_HERE@|$cmake_up|g" \
    -e "s|@VERSION@|$version|g" -e "s|@LIBRARY@|$real|g" \
  "$repo/tools/install/ncoreConfig.cmake.in" > "$lib/cmake/ncore/ncoreConfig.cmake"
sed -e "s|@VERSION@|$version|g" -e "s|@MAJOR@|${version%%.*}|g" \
  "$repo/tools/install/ncoreConfigVersion.cmake.in" > "$lib/cmake/ncore/ncoreConfigVersion.cmake"
echo "install.sh: ncore $version installed in $destdir$prefix"
