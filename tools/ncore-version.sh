#!/usr/bin/env bash
# tools/ncore-version.sh [version|file]: the library version that
# abi/include/ncore/version.h declares, as MAJOR.MINOR.PATCH (the default) or
# as the library's file name, libncore.so.MAJOR.MINOR.PATCH. One reader of
# version.h for the build, the install and the packages (pkg-config, CMake).
set -euo pipefail
header="$(dirname "$0")/../abi/include/ncore/version.h"
part() { sed -n "s/^#define NCORE_VERSION_$1 \([0-9]*\)$/\1/p" "$header"; }
version="$(part MAJOR).$(part MINOR).$(part PATCH)"
case "${1:-version}" in
  version) echo "$version" ;;
  file) echo "libncore.so.$version" ;;
  *) echo "ncore-version.sh: $1 is not version or file" >&2; exit 2 ;;
esac
