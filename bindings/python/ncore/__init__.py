"""ncore: nccl.core's Python API over libncore's stable C ABI.

Programs written for ``nccl.core`` run with ``import ncore as nccl`` (the
import is the only difference); on machines without GPUs the host backend
runs them on NumPy arrays in shared memory. NVSHMEM-style symmetric memory
(``nvshmem.core``) is in :mod:`ncore.symmetric` and the interop modules;
``ncore.init(comm)`` sets its world communicator.

Layers: ``ncore._ncore`` is the C ABI one to one (SWIG); this package adds
the names, defaults and exceptions of nccl.core.
"""

from __future__ import annotations

from typing import Any

from ._lib import raw as _raw
from ._errors import (NcclClosed, NcclError, NcclInProgress, NcclInternalError,
                      NcclInvalid, NcclInvalidUsage, NcclNotSupported, NcclRemoteError,
                      NcclSystemError, NcclTimeout, NcclUnavailable,
                      NcclUnhandledCudaError, Result, error_for_status)
from ._types import (AVG, BFLOAT16, CHAR, DOUBLE, FLOAT, FLOAT8E4M3, FLOAT8E5M2,
                     FLOAT16, FLOAT32, FLOAT64, HALF, INT, INT8, INT32, INT64, MAX,
                     MIN, PROD, SUM, UINT8, UINT32, UINT64, Backend, CommShrinkFlag,
                     CommSuspendFlag, CTAPolicy, DeviceType, MemcpyKind,
                     NcclCommMemStat, NcclDataType, NcclGinConnectionType, NcclGinType,
                     NcclHostCftMode, NcclNvlsHostMode, NcclRedOp, ScalarResidence,
                     WindowFlag, NcclCftTeamMode, NcclCftCap)
from .cft import CftLeInfo
from .buffer import Buffer, ResolvedBuffer, Stream, resolve_buffer, resolve_stream
from .config import (Config, NCCLCollConfig, NCCLConfig, NcclConfig, NCCLDevCommRequirements,
                     VendorOption)
from .devcomm_requirements import (GinBarrierHandle, GinBarrierRequirement, LLA2AHandle,
                                   LLA2ARequirement, LsaBarrierHandle, LsaBarrierRequirement,
                                   MultimemHandle, TeamRequirement)
from .unique_id import UniqueId, get_unique_id
from .resources import (CommResource, CustomRedOp, DevCommInfo, DevCommResource,
                        RegisteredBufferHandle, RegisteredWindowHandle)
from ._p2p import WaitSignalDesc
from ._comm_control import NCCLCommProperties
from .communicator import Communicator
from .team import NCCLTeam
from .params import dump_params, params
from .info import Feature, NcoreLibraryInfo, get_library_info
from .group import GroupSimInfo, group, group_end, group_start
from .memory import MemoryAllocation, mem_alloc, mem_free, memcpy, memset
from .utils import (LibraryInfo, Version, VersionInfo, get_error_string, get_lib_path,
                    get_lib_version, get_version, ncore_version, show_versions)
from .typing import (NcclBufferSpec, NcclDeviceSpec, NcclEventSpec, NcclScalarSpec,
                     NcclStreamSpec)
from . import constants, cuda, symmetric, typing, utils
from .symmetric import get, my_pe, n_pes, put

__version__ = _raw.ncore_version_string()

#: The C ABI one to one (the SWIG module ``ncore._ncore``): out-parameters
#: returned, a failing status raised as the NcclError subclass of this package.
#: For tools that must pass exactly what C passes (the conformance runner).
raw = _raw

#: nvshmem.core-style global init of the symmetric helpers (see ncore.symmetric).
init = symmetric.init
#: Frees open symmetric allocations and forgets the world communicator.
finalize = symmetric.finalize


def free_tensor(tensor: NcclBufferSpec) -> None:
    """Frees a symmetric torch tensor (nvshmem.core.free_tensor)."""
    symmetric.free(tensor)


def free_array(array: NcclBufferSpec) -> None:
    """Frees a symmetric NumPy or CuPy array (nvshmem.core.free_array)."""
    symmetric.free(array)


def __getattr__(name: str) -> Any:
    """Loads the interop modules lazily: ncore.interop, ncore.torch, ncore.cupy
    (nccl.core's spelling), ncore.numpy."""
    import importlib

    if name == "interop":
        return importlib.import_module(f"{__name__}.interop")
    if name in ("torch", "cupy", "numpy"):
        return importlib.import_module(f"{__name__}.interop.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "Feature", "NcoreLibraryInfo", "get_library_info",
    "NcclError", "NcclInvalid", "NcclInvalidUsage", "NcclSystemError",
    "NcclInternalError", "NcclUnhandledCudaError", "NcclRemoteError",
    "NcclInProgress", "NcclNotSupported", "NcclUnavailable", "NcclTimeout",
    "NcclClosed", "error_for_status", "Result",
    "NcclDataType", "NcclRedOp", "NcclGinType", "NcclGinConnectionType", "Backend",
    "DeviceType", "ScalarResidence", "MemcpyKind", "WindowFlag", "CommShrinkFlag",
    "CommSuspendFlag", "CTAPolicy", "NcclCommMemStat", "NcclHostCftMode", "NcclNvlsHostMode",
    "NcclCftTeamMode", "NcclCftCap", "CftLeInfo",
    "NCCLCommProperties",
    "NcclBufferSpec", "NcclScalarSpec", "NcclDeviceSpec", "NcclStreamSpec", "NcclEventSpec",
    "INT8", "CHAR", "UINT8", "INT32", "INT", "UINT32", "INT64", "UINT64", "FLOAT16",
    "HALF", "FLOAT32", "FLOAT", "FLOAT64", "DOUBLE", "BFLOAT16", "FLOAT8E4M3",
    "FLOAT8E5M2", "SUM", "PROD", "MAX", "MIN", "AVG",
    "Buffer", "ResolvedBuffer", "Stream", "resolve_buffer", "resolve_stream",
    "NCCLConfig", "Config", "NcclConfig", "NCCLDevCommRequirements", "NCCLCollConfig",
    "VendorOption", "TeamRequirement", "LsaBarrierRequirement", "GinBarrierRequirement",
    "LLA2ARequirement", "MultimemHandle", "LsaBarrierHandle", "GinBarrierHandle", "LLA2AHandle",
    "UniqueId", "get_unique_id",
    "CommResource", "RegisteredBufferHandle", "RegisteredWindowHandle", "CustomRedOp",
    "DevCommResource", "DevCommInfo", "WaitSignalDesc", "Communicator", "NCCLTeam",
    "params", "dump_params",
    "group", "group_start", "group_end", "GroupSimInfo",
    "MemoryAllocation", "mem_alloc", "mem_free", "memcpy", "memset",
    "symmetric", "init", "finalize", "my_pe", "n_pes", "put", "get",
    "free_tensor", "free_array", "raw",
    "Version", "VersionInfo", "LibraryInfo", "get_version", "show_versions",
    "get_lib_version", "get_lib_path", "get_error_string",
    "ncore_version",
    "constants", "cuda", "typing", "utils",
]
