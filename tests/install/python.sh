#!/usr/bin/env bash
# tests/install/python.sh PREFIX WORK: the Python package as a user gets it.
# Builds a wheel and an sdist against the installed prefix (pkg-config), a
# second wheel from the unpacked sdist, installs the wheel into a fresh venv
# (--system-site-packages for numpy; offline) and runs a 2-rank script from
# outside the repository with the prefix moved away: the wheel carries
# libncore and the launcher. Also: the console script, the NCCL wheel pointer.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
prefix=$1 work=$2
. "$here/lib.sh"
py=/usr/bin/python3
dist=$work/dist
mkdir -p "$dist" "$work/py"
cp "$here/python/ring_sum.py" "$work/py/"
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
# The repository's bindings/python/include (an earlier sdist's copy) would
# shadow pkg-config; the wheel must come from the install.
rm -rf "$repo/bindings/python/include"
check wheel_builds $py -m pip wheel -q --no-build-isolation --no-deps --no-index \
  -w "$dist" "$repo/bindings/python"
wheel=$(ls "$dist"/ncore-*.whl 2>/dev/null | head -1)
check wheel_carries_libncore_and_launcher bash -c "unzip -l '$wheel' | grep -q 'ncore/libncore.so.1' &&
  unzip -l '$wheel' | grep -q 'ncore/bin/ncore-run'"
check sdist_builds bash -c "cd '$repo/bindings/python' && $py setup.py -q sdist -d '$dist' >/dev/null 2>&1"
sdist=$(ls "$dist"/ncore-*.tar.gz 2>/dev/null | head -1)
rm -rf "$repo/bindings/python/include"
check sdist_carries_interface_and_headers bash -c "tar tzf '$sdist' | grep -q '/ncore.i\$' &&
  tar tzf '$sdist' | grep -q '/include/ncore.h\$' && tar tzf '$sdist' | grep -q '/include/ncore/info.h\$'"
check wheel_builds_from_sdist outside "$work/py" bash -c "mkdir -p sd wheel2 && tar xzf '$sdist' -C sd &&
  $py -m pip wheel -q --no-build-isolation --no-deps --no-index -w wheel2 sd/ncore-*/ && ls wheel2/ncore-*.whl"
unset PKG_CONFIG_PATH

venv=$work/venv
check venv_install outside "$work" bash -c "$py -m venv --system-site-packages '$venv' &&
  '$venv/bin/pip' install -q --no-index --no-deps '$wheel'"
site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
check extension_runpath_is_origin bash -c "readelf -d '$site'/ncore/_ncore_c*.so | grep -E 'RUNPATH|RPATH' | grep -q '\[\\\$ORIGIN\]'"
# (Debug information may name the build folder; what the loader reads may not.)
check no_checkout_path_in_run_paths bash -c "for f in '$site'/ncore/*.so*; do
  readelf -d \"\$f\" | grep -q '$repo' && exit 1; done; exit 0"
# The checkout and the prefix must not matter: the prefix is moved away.
mv "$prefix" "$prefix.away"
check script_runs_2_ranks_python_launcher outside "$work/py" \
  "$venv/bin/python" -m ncore.run -n 2 --timeout 120 ring_sum.py
check console_script_runs_3_ranks outside "$work/py" \
  "$venv/bin/ncore-run" -n 3 --timeout 120 "$venv/bin/python" ring_sum.py
check console_script_version outside "$work/py" bash -c "'$venv/bin/ncore-run' --version | grep -q ncore"
check module_launcher_version outside "$work/py" bash -c "'$venv/bin/python' -m ncore.run --version | grep -q ncore"
# The NCCL wheel's library (nvidia/nccl/lib) is what the loader is pointed at.
fake=$work/fake-site/nvidia/nccl/lib
mkdir -p "$fake"
: > "$fake/libnccl.so.2"
check points_loader_at_nccl_wheel outside "$work/py" env -u NCORE_NCCL_LIBRARY \
  PYTHONPATH="$work/fake-site" "$venv/bin/python" -c "
import os, ncore
assert os.environ['NCORE_NCCL_LIBRARY'] == '$fake/libnccl.so.2', os.environ.get('NCORE_NCCL_LIBRARY')
info = ncore.get_library_info()
assert info.backend == ncore.Backend.HOST, info
"
check users_nccl_choice_wins outside "$work/py" env NCORE_NCCL_LIBRARY=/nowhere/libnccl.so.2 \
  PYTHONPATH="$work/fake-site" "$venv/bin/python" -c "
import os, ncore
assert os.environ['NCORE_NCCL_LIBRARY'] == '/nowhere/libnccl.so.2'
"
mv "$prefix.away" "$prefix"
echo "$passed passed, $failed failed"
