#!/usr/bin/env bash
# Compiles the Python extension from the SWIG output alone (no swig needed),
# for machines without SWIG, e.g. the GPU machines (python3.12 there):
#   bash bindings/python/build-ext.sh [PYTHON]        (default: python3)
# Needs build/ncore_wrap.c and build/_ncore.py (made by test.sh, or by
#   swig -python -interface _ncore_c -I abi/include -outdir build -o build/ncore_wrap.c ncore.i)
# and libncore: build/lib of the repository, or NCORE_LIBRARY_DIR /
# NCORE_INCLUDE_DIR. Writes ncore/_ncore.py and ncore/_ncore_c<EXT_SUFFIX>.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
python=${1:-python3}
include=${NCORE_INCLUDE_DIR:-$repo/abi/include}
libdir=${NCORE_LIBRARY_DIR:-$repo/build/lib}
for f in "$here/build/ncore_wrap.c" "$here/build/_ncore.py" "$libdir/libncore.so"; do
  if [ ! -f "$f" ]; then
    echo "build-ext.sh: $f is missing (run bindings/python/test.sh, or make lib)" >&2
    exit 1
  fi
done
# sysconfig rather than python3-config: pip / venv Pythons often lack the latter.
read -r pyinclude suffix < <("$python" -c \
  'import sysconfig as s; print(s.get_paths()["include"], s.get_config_var("EXT_SUFFIX"))')
cp "$here/build/_ncore.py" "$here/ncore/_ncore.py"
# rpath: the repository's build/lib relative to the package, then the absolute
# directory used now.
gcc -shared -fPIC -O2 -g -fno-strict-aliasing -I"$pyinclude" -I"$include" \
  "$here/build/ncore_wrap.c" -o "$here/ncore/_ncore_c$suffix" \
  -L"$libdir" -lncore -Wl,-rpath,'$ORIGIN/../../../build/lib' -Wl,-rpath,"$libdir"
echo "build-ext.sh: built ncore/_ncore_c$suffix with $("$python" --version 2>&1)"
