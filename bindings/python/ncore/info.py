"""What this process's ncore is and can do (ncore_library_info): the
version, the backend AUTO picks and why, the libnccl loaded and the
features of the chosen backend."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from ._lib import raw
from ._types import Backend

__all__ = ["Feature", "NcoreLibraryInfo", "get_library_info"]


class Feature(enum.IntFlag):
    """Calls the chosen backend serves (NCORE_FEATURE_*)."""
    ONE_SIDED = raw.NCORE_FEATURE_ONE_SIDED
    REVOKE = raw.NCORE_FEATURE_REVOKE
    GROW = raw.NCORE_FEATURE_GROW
    SUSPEND = raw.NCORE_FEATURE_SUSPEND
    MEM_STAT = raw.NCORE_FEATURE_MEM_STAT
    SCALABLE_INIT = raw.NCORE_FEATURE_SCALABLE_INIT


@dataclass(frozen=True)
class NcoreLibraryInfo:
    """ncore_library_info_t (ncore 1.1 named this class LibraryInfo; from 1.2
    that name is nccl.core's description of libnccl, utils.LibraryInfo, so
    that programs written for nccl.core find what they expect). backend is Backend.AUTO when AUTO resolves to
    no backend (backend_reason says why); nccl_version is NCCL's code
    (22809 for 2.28.9), 0 and nccl_path "" when no libnccl was loaded."""
    version: str
    abi_version: int
    backend: Backend
    backend_reason: str
    features: Feature
    nccl_version: int
    nccl_path: str
    cuda_device_count: int
    #: ABI 1.2: the newest NCCL ncore knows (23007 for 2.30.7), and the CUDA
    #: version the loaded libnccl was built with (12090 for 12.9; 0: none).
    nccl_headers_version: int = 0
    nccl_cuda_version: int = 0


def get_library_info() -> NcoreLibraryInfo:
    """Describes the loaded libncore (probing NCCL as AUTO would)."""
    fields = raw.ncore_library_info()
    return NcoreLibraryInfo(version=fields["version"],
                            abi_version=fields["abi_version"],
                            backend=Backend(fields["backend"]),
                            backend_reason=fields["backend_reason"],
                            features=Feature(fields["features"]),
                            nccl_version=fields["nccl_version"],
                            nccl_path=fields["nccl_path"],
                            cuda_device_count=fields["cuda_device_count"],
                            nccl_headers_version=fields["nccl_headers_version"],
                            nccl_cuda_version=fields["nccl_cuda_version"])
