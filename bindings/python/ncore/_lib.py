"""Loads the raw SWIG layer (`ncore._ncore`, the C ABI one to one) and checks
that the loaded libncore speaks the ABI this package was built against."""

from __future__ import annotations

from . import _ncore as raw

__all__ = ["raw"]


def _check_abi() -> None:
    """Refuses a library whose ABI major differs or whose minor is older than
    the headers the extension was compiled with (abi/include/ncore/version.h)."""
    loaded = raw.ncore_abi_version()
    built = raw.NCORE_ABI_VERSION
    if loaded // 10000 != built // 10000 or loaded < built:
        raise ImportError(
            f"ncore: loaded libncore ABI {loaded} is incompatible with the "
            f"ABI {built} this extension was built against"
        )


_check_abi()
