"""Enums and constants with nccl.core's names; values equal ncore's (and so
NCCL's): data types, reduction operators, GIN types, flags, backends."""

from __future__ import annotations

import enum
from typing import Any

from ._lib import raw

__all__ = [
    "NcclDataType",
    "NcclRedOp",
    "NcclGinType",
    "NcclGinConnectionType",
    "Backend",
    "DeviceType",
    "ScalarResidence",
    "MemcpyKind",
    "WindowFlag",
    "CommShrinkFlag",
    "CommSuspendFlag",
    "CTAPolicy",
    "NcclCommMemStat",
    "NcclHostCftMode",
    "NcclNvlsHostMode",
    "NcclCftTeamMode",
    "NcclCftCap",
    "INT8", "CHAR", "UINT8", "INT32", "INT", "UINT32", "INT64", "UINT64",
    "FLOAT16", "HALF", "FLOAT32", "FLOAT", "FLOAT64", "DOUBLE", "BFLOAT16",
    "FLOAT8E4M3", "FLOAT8E5M2",
    "SUM", "PROD", "MAX", "MIN", "AVG",
]

# NumPy / ml_dtypes names of the types NumPy has no typestr for.
_EXTENDED_NAMES = {"bfloat16": 9, "float8_e4m3fn": 10, "float8_e5m2": 11}


class NcclDataType(enum.IntEnum):
    """Element type, mirroring ncclDataType_t (and ncore_dtype_t)."""

    INT8 = raw.NCORE_INT8
    CHAR = raw.NCORE_INT8
    UINT8 = raw.NCORE_UINT8
    INT32 = raw.NCORE_INT32
    INT = raw.NCORE_INT32
    UINT32 = raw.NCORE_UINT32
    INT64 = raw.NCORE_INT64
    UINT64 = raw.NCORE_UINT64
    FLOAT16 = raw.NCORE_FLOAT16
    HALF = raw.NCORE_FLOAT16
    FLOAT32 = raw.NCORE_FLOAT32
    FLOAT = raw.NCORE_FLOAT32
    FLOAT64 = raw.NCORE_FLOAT64
    DOUBLE = raw.NCORE_FLOAT64
    BFLOAT16 = raw.NCORE_BFLOAT16
    FLOAT8E4M3 = raw.NCORE_FLOAT8E4M3
    FLOAT8E5M2 = raw.NCORE_FLOAT8E5M2

    @classmethod
    def _missing_(cls, value: Any) -> "NcclDataType | None":
        """``NcclDataType(np.float32)``, ``NcclDataType("float32")``,
        ``NcclDataType(array.dtype)``: anything np.dtype takes that is not a
        member's value goes through from_numpy_dtype (nccl.core does the
        same); an int that is no member stays a ValueError."""
        if isinstance(value, int):
            return None
        import numpy as np

        try:
            dtype = np.dtype(value)
        except (TypeError, ValueError):
            return None
        return cls.from_numpy_dtype(dtype)

    @property
    def itemsize(self) -> int:
        """Size of one element in bytes (ncore_dtype_size)."""
        return raw.ncore_dtype_size(int(self))

    @property
    def type_name(self) -> str:
        """ncore's lower-case name of the type ("float32", "bfloat16", ...)."""
        return raw.ncore_dtype_name(int(self))

    @property
    def numpy_dtype(self) -> Any:
        """The NumPy dtype (bfloat16 / float8 need the ml_dtypes package)."""
        import numpy as np

        name = self.type_name
        if int(self) in _EXTENDED_NAMES.values():
            import ml_dtypes  # noqa: F401  (registers the names with NumPy)

            name = {v: k for k, v in _EXTENDED_NAMES.items()}[int(self)]
        return np.dtype(name)

    @classmethod
    def from_numpy_dtype(cls, dtype: Any) -> "NcclDataType":
        """Maps a NumPy dtype (or anything np.dtype accepts) to NcclDataType.

        Raises:
            NcclInvalid: if the type has no ncore equivalent (bool, complex ...);
                the message comes from ncore_dtype_from_typestr.
        """
        import numpy as np

        dtype = np.dtype(dtype)
        if dtype.name in _EXTENDED_NAMES:
            return cls(_EXTENDED_NAMES[dtype.name])
        return cls(raw.ncore_dtype_from_typestr(dtype.str))

    @classmethod
    def from_dlpack(cls, code: int, bits: int, lanes: int = 1) -> "NcclDataType":
        """Maps a DLPack dtype (DLDataTypeCode, bits, lanes) to NcclDataType
        (ncore_dtype_from_dlpack).

        Raises:
            NcclInvalid: no ncore equivalent (bool, complex, lanes != 1, ...);
                the message comes from the library.
        """
        return cls(raw.ncore_dtype_from_dlpack(int(code), int(bits), int(lanes)))


class NcclRedOp(enum.IntEnum):
    """Built-in reduction operator, mirroring ncclRedOp_t."""

    SUM = raw.NCORE_SUM
    PROD = raw.NCORE_PROD
    MAX = raw.NCORE_MAX
    MIN = raw.NCORE_MIN
    AVG = raw.NCORE_AVG


class NcclGinType(enum.IntEnum):
    """GIN transport type, mirroring ncclGinType_t (Communicator.gin_type)."""

    NONE = raw.NCORE_GIN_TYPE_NONE
    PROXY = raw.NCORE_GIN_TYPE_PROXY
    GDAKI = raw.NCORE_GIN_TYPE_GDAKI
    GPI = raw.NCORE_GIN_TYPE_GPI
    EFA_GDA = raw.NCORE_GIN_TYPE_EFA_GDA


class NcclGinConnectionType(enum.IntEnum):
    """GIN connection topology, mirroring ncclGinConnectionType_t."""

    NONE = raw.NCORE_GIN_CONNECTION_NONE
    FULL = raw.NCORE_GIN_CONNECTION_FULL
    RAIL = raw.NCORE_GIN_CONNECTION_RAIL
    CUSTOM_STRIDE = raw.NCORE_GIN_CONNECTION_CUSTOM_STRIDE


class NcclCftTeamMode(enum.IntEnum):
    """Layout of the CFT team Communicator.team_cft answers, mirroring
    ncclCftTeamMode_t (ncore_cft_team_mode_t)."""

    FLAT = raw.NCORE_CFT_TEAM_FLAT
    HIER_MULTIMEM = raw.NCORE_CFT_TEAM_HIER_MULTIMEM
    HIER_LSA = raw.NCORE_CFT_TEAM_HIER_LSA


class NcclCftCap(enum.IntEnum):
    """CFT capability bits of a device communicator's requirements (their
    cft_caps), mirroring ncclCftCap_t (ncore_cft_cap_t)."""

    NONE = raw.NCORE_CFT_CAP_NONE
    CFT = raw.NCORE_CFT_CAP_CFT
    MULTIMEM = raw.NCORE_CFT_CAP_MULTIMEM


class Backend(enum.IntEnum):
    """Which implementation runs a communicator (ncore_backend_t)."""

    AUTO = raw.NCORE_BACKEND_AUTO
    HOST = raw.NCORE_BACKEND_HOST
    NCCL = raw.NCORE_BACKEND_NCCL

    @classmethod
    def resolve(cls, requested: "Backend | int" = 0) -> "Backend":
        """The backend AUTO (or NCORE_BACKEND) picks here; a concrete request
        is checked for availability (NcclUnavailable) and echoed."""
        return cls(raw.ncore_backend_resolve(int(requested)))


class DeviceType(enum.IntEnum):
    """Where a buffer lives (ncore_device_type_t)."""

    CPU = raw.NCORE_DEVICE_CPU
    CUDA = raw.NCORE_DEVICE_CUDA


class ScalarResidence(enum.IntEnum):
    """Where a PreMulSum scalar lives (ncclScalarResidence_t)."""

    DEVICE = raw.NCORE_SCALAR_DEVICE
    HOST_IMMEDIATE = raw.NCORE_SCALAR_HOST_IMMEDIATE


class MemcpyKind(enum.IntEnum):
    """Direction of a copy (ncore_memcpy_kind_t, cudaMemcpyKind)."""

    DEFAULT = raw.NCORE_MEMCPY_DEFAULT
    HOST_TO_DEVICE = raw.NCORE_MEMCPY_HOST_TO_DEVICE
    DEVICE_TO_HOST = raw.NCORE_MEMCPY_DEVICE_TO_HOST
    DEVICE_TO_DEVICE = raw.NCORE_MEMCPY_DEVICE_TO_DEVICE
    HOST_TO_HOST = raw.NCORE_MEMCPY_HOST_TO_HOST


# The enums below carry nccl.core's PascalCase aliases (Default, Abort, ...)
# next to the upper-case names: nccl.core kept them from its earlier API and
# its documentation's examples use them.


class WindowFlag(enum.IntFlag):
    """Window registration flags (NCCL_WIN_*)."""

    DEFAULT = raw.NCORE_WINDOW_DEFAULT
    COLL_SYMMETRIC = raw.NCORE_WINDOW_COLL_SYMMETRIC
    #: One-sided operations on the window complete in the order issued
    #: (NCCL 2.29.7+; the host backend always orders them).
    STRICT_ORDERING = raw.NCORE_WINDOW_STRICT_ORDERING
    #: Register the window for GIN access only (NCCL 2.32+).
    GIN_ONLY = raw.NCORE_WINDOW_GIN_ONLY
    #: Register against counted CFT logical endpoints (NCCL 2.32+; the host
    #: backend has no CFT and refuses it).
    CFT_COUNTED = raw.NCORE_WINDOW_CFT_COUNTED
    Default = raw.NCORE_WINDOW_DEFAULT
    CollSymmetric = raw.NCORE_WINDOW_COLL_SYMMETRIC
    StrictOrdering = raw.NCORE_WINDOW_STRICT_ORDERING


class CommShrinkFlag(enum.IntEnum):
    """Communicator.shrink behaviour (NCCL_SHRINK_*): one value, not a set."""

    DEFAULT = raw.NCORE_SHRINK_DEFAULT
    ABORT = raw.NCORE_SHRINK_ABORT
    Default = raw.NCORE_SHRINK_DEFAULT
    Abort = raw.NCORE_SHRINK_ABORT


class CommSuspendFlag(enum.IntFlag):
    """Communicator.suspend flags (NCCL_SUSPEND_*)."""

    MEM = raw.NCORE_SUSPEND_MEM
    Mem = raw.NCORE_SUSPEND_MEM


class CTAPolicy(enum.IntFlag):
    """NCCLConfig.cta_policy values (NCCL_CTA_POLICY_*). ncore's C header
    has no names for them: the field is passed to NCCL as it is."""

    DEFAULT = 0x00
    EFFICIENCY = 0x01
    ZERO = 0x02
    Default = 0x00
    Efficiency = 0x01
    Zero = 0x02


class NcclHostCftMode(enum.IntEnum):
    """NCCLConfig.host_cft_mode (ncclHostCftMode_t, NCCL 2.31.1+): whether
    the communicator creates the CUDA fabric logical endpoints behind the
    host-side Compute Fabric Transport queries."""

    #: NCCL's version-specific default (the same as leaving the field None).
    DEFAULT = raw.NCORE_CONFIG_UNDEF_INT
    ENABLE = raw.NCORE_HOST_CFT_ENABLE
    DISABLE = raw.NCORE_HOST_CFT_DISABLE
    #: Try to create the endpoints; on error disable host CFT, not fail.
    FALLBACK = raw.NCORE_HOST_CFT_FALLBACK


class NcclNvlsHostMode(enum.IntFlag):
    """NCCLConfig.nvls_host_mode (ncclNvlsHostMode_t, NCCL 2.32.0+): which
    host NVLS components the communicator uses; the DISABLE_ members
    combine. Leave the field None for NCCL's default (today ENABLE)."""

    ENABLE = raw.NCORE_NVLS_HOST_MODE_ENABLE
    DISABLE_TRANSPORT = raw.NCORE_NVLS_HOST_MODE_DISABLE_TRANSPORT
    DISABLE_SYMMETRIC_MULTIMEM = raw.NCORE_NVLS_HOST_MODE_DISABLE_SYMMETRIC_MULTIMEM
    DISABLE = raw.NCORE_NVLS_HOST_MODE_DISABLE


class NcclCommMemStat(enum.IntEnum):
    """Communicator.get_mem_stat's selector (ncclCommMemStat_t): bytes,
    except GPU_MEM_SUSPENDED (0 or 1)."""

    GPU_MEM_SUSPEND = raw.NCORE_COMM_MEM_STAT_GPU_MEM_SUSPEND
    GPU_MEM_SUSPENDED = raw.NCORE_COMM_MEM_STAT_GPU_MEM_SUSPENDED
    GPU_MEM_PERSIST = raw.NCORE_COMM_MEM_STAT_GPU_MEM_PERSIST
    GPU_MEM_TOTAL = raw.NCORE_COMM_MEM_STAT_GPU_MEM_TOTAL
    GpuMemSuspend = raw.NCORE_COMM_MEM_STAT_GPU_MEM_SUSPEND
    GpuMemSuspended = raw.NCORE_COMM_MEM_STAT_GPU_MEM_SUSPENDED
    GpuMemPersist = raw.NCORE_COMM_MEM_STAT_GPU_MEM_PERSIST
    GpuMemTotal = raw.NCORE_COMM_MEM_STAT_GPU_MEM_TOTAL


INT8 = NcclDataType.INT8
CHAR = NcclDataType.CHAR
UINT8 = NcclDataType.UINT8
INT32 = NcclDataType.INT32
INT = NcclDataType.INT
UINT32 = NcclDataType.UINT32
INT64 = NcclDataType.INT64
UINT64 = NcclDataType.UINT64
FLOAT16 = NcclDataType.FLOAT16
HALF = NcclDataType.HALF
FLOAT32 = NcclDataType.FLOAT32
FLOAT = NcclDataType.FLOAT
FLOAT64 = NcclDataType.FLOAT64
DOUBLE = NcclDataType.DOUBLE
BFLOAT16 = NcclDataType.BFLOAT16
FLOAT8E4M3 = NcclDataType.FLOAT8E4M3
FLOAT8E5M2 = NcclDataType.FLOAT8E5M2

SUM = NcclRedOp.SUM
PROD = NcclRedOp.PROD
MAX = NcclRedOp.MAX
MIN = NcclRedOp.MIN
AVG = NcclRedOp.AVG
