"""``python -m ncore``: the one-line description of this ncore, which is
``ncore-run --info`` (the launcher beside the loaded libncore) run with
this interpreter's environment."""

from __future__ import annotations

import os
import subprocess
import sys

import ncore
from ncore.run import launcher_path


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ncore", *args], capture_output=True,
                          text=True, timeout=60, env=os.environ.copy())


def test_python_m_ncore_prints_the_library_in_one_line():
    done = _run()
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 1, done.stdout
    info = ncore.get_library_info()
    backend = {ncore.Backend.HOST: "host", ncore.Backend.NCCL: "nccl"}[info.backend]
    assert lines[0].startswith(f"ncore {info.version} (ABI {info.abi_version}); "
                               f"{backend} backend: {info.backend_reason}; ")
    if info.nccl_path:
        assert f" from {info.nccl_path}; " in lines[0]
    else:
        assert "; NCCL not loaded" in lines[0]
    assert lines[0].endswith(f"; CUDA devices: {info.cuda_device_count}")


def test_python_m_ncore_is_ncore_run_info():
    # os.environ holds what importing ncore set (NCORE_NCCL_LIBRARY for the
    # interpreter's nvidia.nccl), as python -m ncore's own does.
    direct = subprocess.run([launcher_path(), "--info"], capture_output=True, text=True,
                            timeout=60, env=os.environ.copy())
    assert direct.returncode == 0, direct.stderr
    assert _run("--info").stdout == direct.stdout
    assert _run("--version").stdout == direct.stdout


def test_python_m_ncore_refuses_unknown_arguments():
    done = _run("--frobnicate")
    assert done.returncode == 2
    assert "unknown arguments --frobnicate" in done.stderr
    assert "usage: python -m ncore" in done.stderr
    helped = _run("--help")
    assert helped.returncode == 0 and "usage: python -m ncore" in helped.stdout
