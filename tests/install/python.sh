#!/usr/bin/env bash
# tests/install/python.sh PREFIX WORK: the README's Python steps as written,
# outside the repository with Debian's python3: a venv, the wheel of the
# distribution ncore-nccl built offline against the installed prefix
# (pkg-config), installed without a package index, the README's script on 4
# ranks; then the README's release step (the manylinux-tagged copy), which
# installs and runs in a second venv. Also: an sdist and a wheel from it, the
# extension's run path, the prefix moved away (the wheel carries libncore
# and the launcher), the console script, the NCCL wheel pointer.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
prefix=$1 work=$2
. "$here/lib.sh"
# A fresh Debian 12 machine's python3 (this machine may put another first).
export PATH=/usr/bin:$PATH
py=/usr/bin/python3
user=$work/py
mkdir -p "$user" "$work/sdist"
cp "$here/python/ring_sum.py" "$user/"
# The repository's bindings/python/include (an earlier sdist's copy) would
# shadow pkg-config; the wheel must come from the install.
rm -rf "$repo/bindings/python/include"

# The README: venv, pip wheel (offline), pip install, ncore-run -n 4.
check readme_python_wheel_installs_and_runs_4_ranks readme_run "$user" "$user/readme.log" python
wheel=$(ls "$user"/dist/ncore_nccl-*.whl 2>/dev/null | head -1)
check wheel_is_distribution_ncore_nccl_importing_ncore bash -c "[ -n '$wheel' ] &&
  unzip -p '$wheel' '*.dist-info/METADATA' | grep -qx 'Name: ncore-nccl' &&
  unzip -l '$wheel' | grep -q ' ncore/__init__.py\$'"
check wheel_carries_libncore_and_launcher bash -c "unzip -l '$wheel' | grep -q 'ncore/libncore.so.1' &&
  unzip -l '$wheel' | grep -q 'ncore/bin/ncore-run'"
venv=$user/venv
site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
check extension_runpath_is_origin bash -c "readelf -d '$site'/ncore/_ncore_c*.so | grep -E 'RUNPATH|RPATH' | grep -q '\[\\\$ORIGIN\]'"
# (Debug information may name the build folder; what the loader reads may not.)
check no_checkout_path_in_run_paths bash -c "for f in '$site'/ncore/*.so*; do
  readelf -d \"\$f\" | grep -q '$repo' && exit 1; done; exit 0"

# An interpreter without `wheel` (a venv of its own, as pyenv's or conda's
# often are) is told what it lacks and what to do, not "invalid command
# 'bdist_wheel'".
check wheel_build_names_what_the_interpreter_lacks outside "$work" bash -c "
  $py -m venv bare-venv && ! bare-venv/bin/python -c 'import wheel' 2>/dev/null &&
  out=\$(bare-venv/bin/pip wheel --no-build-isolation --no-deps --no-index -w bare-dist '$repo/bindings/python' 2>&1);
  echo \"\$out\" | grep -q 'cannot build a wheel: it has neither setuptools >= 70.1 nor the package .wheel.' &&
  echo \"\$out\" | grep -q '/usr/bin/python3 -m venv --system-site-packages venv'"

# The README's release step: the manylinux-tagged copy of the wheel, which
# pip installs (into a second venv) and which runs.
check readme_release_wheel_is_manylinux readme_run "$user" "$user/release.log" python-release
release=$(ls "$user"/dist/ncore_nccl-*-manylinux_2_*_x86_64.whl 2>/dev/null | head -1)
check release_wheel_installs_and_runs_2_ranks outside "$user" bash -c "[ -n '$release' ] &&
  $py -m venv --system-site-packages release-venv &&
  release-venv/bin/pip install -q --no-index '$release' &&
  [ -x \"\$(echo release-venv/lib/python3*/site-packages/ncore/bin/ncore-run)\" ] &&
  release-venv/bin/ncore-run -n 2 --timeout 120 release-venv/bin/python ring_sum.py"

# The source package, and a wheel from it.
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
check sdist_builds bash -c "cd '$repo/bindings/python' && $py setup.py -q sdist -d '$work/sdist' >/dev/null 2>&1"
sdist=$(ls "$work"/sdist/ncore[-_]nccl-*.tar.gz 2>/dev/null | head -1)
rm -rf "$repo/bindings/python/include"
check sdist_carries_interface_and_headers bash -c "[ -n '$sdist' ] && tar tzf '$sdist' | grep -q '/ncore.i\$' &&
  tar tzf '$sdist' | grep -q '/include/ncore.h\$' && tar tzf '$sdist' | grep -q '/include/ncore/info.h\$'"
check wheel_builds_from_sdist outside "$work/sdist" bash -c "mkdir -p sd wheel2 && tar xzf '$sdist' -C sd &&
  $py -m pip wheel -q --no-build-isolation --no-deps --no-index -w wheel2 sd/ncore[-_]nccl-*/ &&
  ls wheel2/ncore_nccl-*.whl"
unset PKG_CONFIG_PATH

# The checkout and the prefix must not matter: the prefix is moved away.
mv "$prefix" "$prefix.away"
check script_runs_2_ranks_python_launcher outside "$user" \
  "$venv/bin/python" -m ncore.run -n 2 --timeout 120 ring_sum.py
check console_script_runs_3_ranks outside "$user" \
  "$venv/bin/ncore-run" -n 3 --timeout 120 "$venv/bin/python" ring_sum.py
check console_script_version outside "$user" bash -c "'$venv/bin/ncore-run' --version | grep -q ncore"
check module_launcher_version outside "$user" bash -c "'$venv/bin/python' -m ncore.run --version | grep -q ncore"
# The NCCL wheel's library (nvidia/nccl/lib) is what the loader is pointed at.
fake=$work/fake-site/nvidia/nccl/lib
mkdir -p "$fake"
: > "$fake/libnccl.so.2"
check points_loader_at_nccl_wheel outside "$user" env -u NCORE_NCCL_LIBRARY \
  PYTHONPATH="$work/fake-site" "$venv/bin/python" -c "
import os, ncore
assert os.environ['NCORE_NCCL_LIBRARY'] == '$fake/libnccl.so.2', os.environ.get('NCORE_NCCL_LIBRARY')
info = ncore.get_library_info()
assert info.backend == ncore.Backend.HOST, info
"
check users_nccl_choice_wins outside "$user" env NCORE_NCCL_LIBRARY=/nowhere/libnccl.so.2 \
  PYTHONPATH="$work/fake-site" "$venv/bin/python" -c "
import os, ncore
assert os.environ['NCORE_NCCL_LIBRARY'] == '/nowhere/libnccl.so.2'
"
mv "$prefix.away" "$prefix"
echo "$passed passed, $failed failed"
