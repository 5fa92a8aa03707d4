"""Versions, unique ids and result texts (nccl.core.utils).

The "library" of get_version / get_lib_version is NCCL, as in nccl.core:
the libnccl ncore loaded (ncore_library_info, probing NCCL as the AUTO
backend would); where none is usable (the host backend) there is no NCCL
version to give, and they say None. ncore's own version is
ncore_version()."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Optional, Union

from ._errors import Result
from ._lib import raw
from .info import get_library_info
from .unique_id import UniqueId, get_unique_id

__all__ = [
    "Version",
    "get_version",
    "get_lib_version",
    "get_lib_path",
    "ncore_version",
    "UniqueId",
    "get_unique_id",
    "get_error_string",
]


def _parse(version: Union[int, str]) -> Any:
    """A packed version (X*10000 + Y*100 + Z, or NCCL's older X*1000 + Y*100
    + Z) or "X.Y.Z" as packaging's Version (as nccl.core), or the
    "X.Y.Z" string where packaging is not installed."""
    if isinstance(version, int):
        if version >= 10000:
            major, minor, patch = version // 10000, (version % 10000) // 100, version % 100
        else:
            major, minor, patch = version // 1000, (version % 1000) // 100, version % 100
        version = f"{major}.{minor}.{patch}"
    try:
        from packaging.version import Version as _Version
    except ImportError:
        return str(version)
    return _Version(str(version))


class Version:
    """Versions of NCCL and of this package (nccl.core Version).

    Attributes:
        nccl_version: the loaded libnccl's version; None where no libnccl
            is usable (the host backend).
        nccl4py_version: this package's version (``ncore.__version__``).
    """

    def __init__(self, nccl_version: Optional[Union[int, str]]) -> None:
        self.nccl_version = None if nccl_version is None else _parse(nccl_version)
        self.nccl4py_version = _parse(raw.ncore_version_string())

    def __repr__(self) -> str:
        nccl = self.nccl_version if self.nccl_version is not None else \
            "none loaded (ncore runs its host backend)"
        return (f"\nVersions:\n    NCCL4Py version: {self.nccl4py_version}\n"
                f"    NCCL Library version: {nccl}\n")


def _nccl_version() -> Optional[int]:
    """NCCL_VERSION_CODE of the libnccl ncore loaded, or None."""
    code = get_library_info().nccl_version
    return code if code > 0 else None


def get_version() -> Version:
    """The versions of NCCL (the loaded libnccl; None where none is usable)
    and of this package, as nccl.core's get_version."""
    return Version(_nccl_version())


def get_lib_version() -> Optional[Any]:
    """The release version of the loaded libnccl (e.g. 2.28.9, a packaging
    Version), as nccl.core's; None where no libnccl is usable."""
    code = _nccl_version()
    return None if code is None else _parse(code)


def ncore_version() -> Any:
    """libncore's own release version (e.g. 1.1.0, a packaging Version, or
    the "X.Y.Z" string without packaging): what ncore_version_string()
    says, whichever backend runs."""
    return _parse(raw.ncore_version_string())


def get_lib_path() -> Optional[Path]:
    """Path of the loaded libnccl, else of libncore.so; None if neither can
    be told (libncore's is read from /proc)."""
    nccl_path = get_library_info().nccl_path
    if nccl_path:
        return Path(nccl_path)
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                path = line.split(maxsplit=5)[-1].strip()
                if os.path.basename(path).startswith("libncore.so"):
                    return Path(path)
    except OSError:
        pass
    return None


def get_error_string(nccl_result: Union[Result, int]) -> str:
    """NCCL's text for a result code (ncclGetErrorString): "no error",
    "invalid argument (run with NCCL_DEBUG=WARN for details)", ...;
    "unknown result code" for a value NCCL does not define. ncore's own
    status names are NcclError.status_name."""
    try:
        return Result(int(nccl_result)).text
    except ValueError:
        return "unknown result code"
