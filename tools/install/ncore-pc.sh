#!/usr/bin/env bash
# tools/install/ncore-pc.sh PREFIX LIBDIR INCLUDEDIR: prints ncore.pc for a
# libncore in LIBDIR and headers in INCLUDEDIR. install.sh writes the
# installed one; `make lib` writes build/lib/pkgconfig/ncore.pc for the
# repository itself (the Go binding's fallback: PKG_CONFIG_PATH=build/lib/pkgconfig).
# Libs carry a run path to LIBDIR unless the dynamic loader searches it
# anyway (/lib*, /usr/lib*), so what `pkg-config --libs ncore` builds starts
# without LD_LIBRARY_PATH.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
prefix=$1 libdir=$2 includedir=$3
rpath=""
case "$libdir" in
  /lib|/lib/*|/lib64|/usr/lib|/usr/lib/*|/usr/lib64) ;;
  *) rpath="-Wl,-rpath,\${libdir} " ;;
esac
sed -e "s|@PREFIX@|$prefix|g" -e "s|@LIBDIR@|$libdir|g" -e "s|@INCLUDEDIR@|$includedir|g" \
    -e "s|@VERSION@|$("$repo/tools/ncore-version.sh")|g" -e "s|@RPATH@|$rpath|g" \
  "$repo/tools/install/ncore.pc.in"
