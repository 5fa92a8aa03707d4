#!/usr/bin/env bash
# Builds the Python extension in place and runs the binding's tests.
#   bindings/python/test.sh            (from anywhere; needs build/lib/libncore.so: make lib)
# SWIG writes build/ncore_wrap.c and build/_ncore.py; build-ext.sh compiles
# them (the GPU machines, without swig, run only build-ext.sh). The last line
# printed is pytest's summary.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
python=/usr/bin/python3
libdir=$repo/build/lib
if [ ! -f "$libdir/libncore.so" ]; then
  echo "test.sh: $libdir/libncore.so is missing; run 'make lib' first" >&2
  exit 1
fi
mkdir -p "$here/build"
swig -python -I"$repo/abi/include" -interface _ncore_c \
  -o "$here/build/ncore_wrap.c" -outdir "$here/build" "$here/ncore.i"
bash "$here/build-ext.sh" "$python" >/dev/null
cd "$repo"
export PYTHONPATH="$here${PYTHONPATH:+:$PYTHONPATH}"
# GPU-only tests skip with their reason (-rs prints it).
exec timeout 600 $python -m pytest -q -rs -p no:cacheprovider "$here/tests"
