"""Loads the raw SWIG layer (`ncore._ncore`, the C ABI one to one) and checks
that the loaded libncore speaks the ABI this package was built against.
Before that, points libncore's NCCL loader at this interpreter's own NCCL
wheel (nvidia-nccl-cu12 / -cu13: nvidia/nccl/lib), which the loader's fixed
search paths cannot know for a virtual or conda environment."""

from __future__ import annotations

import importlib.util
import os
from typing import Optional


def _point_at_nccl_wheel() -> None:
    """Sets NCORE_NCCL_LIBRARY to the nvidia.nccl package's libnccl.so.2 when
    that package is importable here and the variable is unset (a user's
    choice wins). libncore reads it when it first loads NCCL."""
    if os.environ.get("NCORE_NCCL_LIBRARY"):
        return
    try:
        spec = importlib.util.find_spec("nvidia.nccl")
    except (ImportError, ValueError):
        return
    for folder in (spec.submodule_search_locations or []) if spec else []:
        candidate = os.path.join(folder, "lib", "libnccl.so.2")
        if os.path.isfile(candidate):
            os.environ["NCORE_NCCL_LIBRARY"] = candidate
            return


_point_at_nccl_wheel()

# The raw layer's ncore_* functions are the compiled C functions themselves:
# ncore.i rebinds each name of SWIG's shadow module to its C function
# (_bind_functions_directly), so a call through raw has no Python frame of
# its own, and the hot path calls raw directly.
from . import _ncore as raw  # noqa: E402  (after the NCCL pointer)
from ._stdio_lines import follow_c_stdout  # noqa: E402

# libncore, now loaded, decided whether a rank's stdout goes line by line.
follow_c_stdout()

__all__ = ["raw", "abi_mismatch"]


def abi_mismatch(loaded: int, built: int) -> Optional[str]:
    """The rule every binding applies when it loads (docs/abi-policy.md): the
    same major version, and a library minor at least the binding's. Returns
    the message for a library that breaks it, None for one that serves."""
    if loaded // 10000 == built // 10000 and loaded >= built:
        return None
    return (f"ncore: libncore.so has ABI version {loaded}, this binding was built "
            f"against {built}: the major versions must match and the library's "
            "minor must be at least the binding's")


def _check_abi() -> None:
    """Refuses, at import, a library the headers this extension was compiled
    with (abi/include/ncore/version.h) cannot trust."""
    message = abi_mismatch(raw.ncore_abi_version(), raw.NCORE_ABI_VERSION)
    if message is not None:
        raise ImportError(message)


_check_abi()
