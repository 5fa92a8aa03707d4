"""Versions, unique ids and result texts (nccl.core.utils).

The "library" of get_version / get_lib_version is NCCL, as in nccl.core:
the libnccl ncore loaded (ncore_library_info, probing NCCL as the AUTO
backend would); where none is usable (the host backend) there is no NCCL
version to give, and they say None. ncore's own version is
ncore_version(). get_version() answers nccl4py 0.4.1's VersionInfo (with
0.3.1's Version attributes too); show_versions() prints it."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Union

from ._errors import Result
from ._lib import raw
from .info import get_library_info
from .unique_id import UniqueId, get_unique_id

__all__ = [
    "Version",
    "VersionInfo",
    "LibraryInfo",
    "get_version",
    "show_versions",
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


@dataclass(frozen=True)
class LibraryInfo:
    """The loaded libnccl (nccl4py 0.4.1's LibraryInfo; ncore's own
    description, ncore_library_info_t, is ncore.NcoreLibraryInfo).

    Attributes:
        version: its release version (e.g. 2.28.9).
        cuda_variant: the CUDA toolkit it was built with (e.g. 12.9), from
            its banner; None where it says none.
        path: the file it was loaded from.
    """

    version: Any
    cuda_variant: Optional[Any]
    path: Optional[Path]

    def __str__(self) -> str:
        out = str(self.version)
        if self.cuda_variant is not None:
            out += f"+cuda{self.cuda_variant}"
        if self.path is not None:
            out += f" @ {self.path}"
        return out


@dataclass(frozen=True)
class VersionInfo:
    """Versions of the stack (nccl4py 0.4.1's VersionInfo).

    Attributes:
        nccl4py: this package's version (ncore's).
        nccl_bindings: the newest NCCL whose structs and calls ncore knows
            (what nccl4py calls the header version of its bindings).
        libnccl: the loaded libnccl, or None where none is usable (the host
            backend).
    nccl_version and nccl4py_version answer as 0.3.1's Version did.
    """

    nccl4py: Any
    nccl_bindings: Any
    libnccl: Optional[LibraryInfo]

    @property
    def nccl_version(self) -> Optional[Any]:
        """0.3.1's name: the loaded libnccl's version, or None."""
        return None if self.libnccl is None else self.libnccl.version

    @property
    def nccl4py_version(self) -> Any:
        """0.3.1's name: this package's version."""
        return self.nccl4py


def get_version() -> VersionInfo:
    """The versions of this package, of the NCCL ncore knows and of the
    loaded libnccl (None where none is usable), as nccl.core's get_version."""
    info = get_library_info()
    libnccl = None
    if info.nccl_version > 0:
        cuda = info.nccl_cuda_version
        libnccl = LibraryInfo(
            version=_parse(info.nccl_version),
            cuda_variant=_parse(f"{cuda // 1000}.{(cuda % 1000) // 10}") if cuda > 0 else None,
            path=Path(info.nccl_path) if info.nccl_path else None)
    return VersionInfo(nccl4py=_parse(raw.ncore_version_string()),
                       nccl_bindings=_parse(info.nccl_headers_version), libnccl=libnccl)


def show_versions() -> None:
    """Prints the versions of get_version() to stdout, as nccl.core does."""
    versions = get_version()
    libnccl = versions.libnccl if versions.libnccl is not None else \
        "none loaded (ncore runs its host backend)"
    width = 13
    print()
    print("NCCL versions")
    print("-------------")
    print(f"{'nccl4py':<{width}}: {versions.nccl4py}")
    print(f"{'nccl_bindings':<{width}}: {versions.nccl_bindings}")
    print(f"{'libnccl':<{width}}: {libnccl}")


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
