#!/usr/bin/env bash
# Builds the Python extension in place and runs the binding's tests.
#   bindings/python/test.sh            (from anywhere; needs build/lib/libncore.so: make lib)
# The last line printed is pytest's summary.
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
  -o "$here/build/ncore_wrap.c" -outdir "$here/ncore" "$here/ncore.i"
suffix=$($python -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
gcc -shared -fPIC -O2 -g -fno-strict-aliasing $($python-config --includes) \
  -I"$repo/abi/include" "$here/build/ncore_wrap.c" -o "$here/ncore/_ncore_c$suffix" \
  -L"$libdir" -lncore -Wl,-rpath,"\$ORIGIN/../../../build/lib" -Wl,-rpath,"$libdir"
cd "$repo"
export PYTHONPATH="$here${PYTHONPATH:+:$PYTHONPATH}"
exec $python -m pytest -q -p no:cacheprovider "$here/tests"
