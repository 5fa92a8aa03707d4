"""Loads the raw SWIG layer (`ncore._ncore`, the C ABI one to one) and checks
that the loaded libncore speaks the ABI this package was built against."""

from __future__ import annotations

from typing import Optional

from . import _ncore as raw

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
