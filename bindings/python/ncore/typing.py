"""nccl.core.typing: the enums and the type aliases of buffer, scalar,
device and stream arguments. The enums live in _types.py; this module is
where nccl.core programs import them from."""

from __future__ import annotations

from typing import Any, Protocol, Union

from ._buffer_resolve import Buffer, ResolvedBuffer
from ._errors import NcclInvalid
from ._types import (AVG, BFLOAT16, CHAR, DOUBLE, FLOAT, FLOAT8E4M3, FLOAT8E5M2,
                     FLOAT16, FLOAT32, FLOAT64, HALF, INT, INT8, INT32, INT64, MAX,
                     MIN, PROD, SUM, UINT8, UINT32, UINT64, NcclCommMemStat,
                     NcclDataType, NcclGinConnectionType, NcclGinType, NcclRedOp)

__all__ = [
    "NcclDataType", "NcclRedOp", "NcclGinType", "NcclGinConnectionType",
    "NcclCommMemStat", "NcclBufferSpec", "NcclScalarSpec", "NcclDeviceSpec",
    "NcclStreamSpec", "NcclEventSpec", "NcclInvalid",
    "INT8", "CHAR", "UINT8", "INT32", "INT", "UINT32", "INT64", "UINT64",
    "FLOAT16", "HALF", "FLOAT32", "FLOAT", "FLOAT64", "DOUBLE", "BFLOAT16",
    "FLOAT8E4M3", "FLOAT8E5M2", "SUM", "PROD", "MAX", "MIN", "AVG",
]


class SupportsDLPack(Protocol):
    """An object of the DLPack protocol (NumPy, torch, CuPy, JAX ...)."""

    def __dlpack__(self, *, stream: Any = None) -> object: ...

    def __dlpack_device__(self) -> tuple[int, int]: ...


class SupportsCAI(Protocol):
    """An object of the CUDA Array Interface."""

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]: ...


class SupportsArrayInterface(Protocol):
    """An object of NumPy's array interface (host memory)."""

    @property
    def __array_interface__(self) -> dict[str, Any]: ...


class SupportsCudaStream(Protocol):
    """An object of the CUDA stream protocol (cuda.core, ncore.Stream)."""

    def __cuda_stream__(self) -> tuple[int, int]: ...


class HasCudaStream(Protocol):
    """A stream that gives its address as ``cuda_stream`` (torch)."""

    @property
    def cuda_stream(self) -> int: ...


class HasStreamPointer(Protocol):
    """A stream that gives its address as ``ptr`` (CuPy)."""

    @property
    def ptr(self) -> int: ...


class HasDeviceId(Protocol):
    """A device that gives its CUDA ordinal as ``device_id`` (cuda.core's
    Device, ncore.cuda.Device)."""

    @property
    def device_id(self) -> int: ...


#: A buffer argument: DLPack, CUDA Array Interface or NumPy array interface
#: objects, or an explicit ncore.Buffer (see ncore.buffer).
NcclBufferSpec = Union[SupportsDLPack, SupportsCAI, SupportsArrayInterface, Buffer,
                       ResolvedBuffer]
#: A PreMulSum scalar: a Python int / float, a one-element NumPy array, or a
#: one-element buffer of the communicator's device.
NcclScalarSpec = Union[int, float, NcclBufferSpec]
#: A device: an ordinal, an ncore.cuda.Device or a cuda.core.Device.
NcclDeviceSpec = Union[int, HasDeviceId]
#: A stream: an address, an object with __cuda_stream__, ncore.Stream,
#: a torch or CuPy stream.
NcclStreamSpec = Union[int, SupportsCudaStream, HasCudaStream, HasStreamPointer]


class HasEventHandle(Protocol):
    """A CUDA event object with a ``handle`` (cuda.core's Event)."""

    @property
    def handle(self) -> Any: ...


#: A CUDA event (nccl4py 0.6.0's NcclEventSpec): a cuda.core Event (an
#: object with ``handle``) or a nonzero integer cudaEvent_t handle.
NcclEventSpec = Union[int, HasEventHandle]
