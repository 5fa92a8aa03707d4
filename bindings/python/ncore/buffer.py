"""Buffers and streams: what nccl.core accepts as `sendbuf` / `recvbuf` /
`stream`, resolved to what the C ABI takes.

A buffer is anything with ``__dlpack__`` (NumPy on the host backend, torch,
cupy), ``__cuda_array_interface__`` or ``__array_interface__``, or an explicit
:class:`Buffer`. Resolution happens in C (ncore_buffer_resolve_dlpack /
ncore_buffer_resolve_array_interface), so every language accepts and rejects
the same buffers with the same messages; the communicator then checks the
device with ncore_comm_check_buffer."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple, Optional

from ._errors import NcclInvalid
from ._lib import raw
from ._types import Backend, DeviceType, NcclDataType

__all__ = ["Buffer", "ResolvedBuffer", "Stream", "resolve_buffer", "resolve_stream"]


def __getattr__(name: str) -> Any:
    """mem_alloc / mem_free, where nccl.core.buffer has them (they live in
    ncore.memory, which imports this module)."""
    if name in ("mem_alloc", "mem_free"):
        from . import memory

        return getattr(memory, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class ResolvedBuffer(NamedTuple):
    """A buffer as the C ABI sees it (ncore_buffer_desc_t)."""

    ptr: int
    count: int
    dtype: NcclDataType
    device_type: DeviceType
    device_id: int

    @property
    def nbytes(self) -> int:
        """Size in bytes (count * itemsize)."""
        return self.count * self.dtype.itemsize

    def as_desc(self) -> tuple:
        """The tuple the raw layer takes for a const ncore_buffer_desc_t *."""
        return (self.ptr, self.count, int(self.dtype), int(self.device_type), self.device_id)


@dataclass(frozen=True)
class Buffer:
    """An explicit buffer: an address plus either a size in bytes or a count
    and dtype, and the device it lives on (-1 = host memory).

    Example: ``Buffer(ptr, count=16, dtype=FLOAT32)`` or ``Buffer(ptr, size=64)``
    (64 bytes of UINT8)."""

    ptr: int
    size: Optional[int] = None
    count: Optional[int] = None
    dtype: Optional[NcclDataType] = None
    device: int = -1

    def resolve(self) -> ResolvedBuffer:
        """Checks the fields and returns the C view of this buffer.

        Raises:
            NcclInvalid: neither or both of size/count given, size not a
                multiple of the element size, negative values.
        """
        dtype = NcclDataType(self.dtype if self.dtype is not None else NcclDataType.UINT8)
        if (self.size is None) == (self.count is None):
            raise NcclInvalid("Buffer: give exactly one of size (bytes) or count (elements)")
        if self.count is not None:
            count = int(self.count)
        else:
            if int(self.size) % dtype.itemsize:
                raise NcclInvalid(
                    f"Buffer: size: {self.size} is not a multiple of {dtype.name}'s "
                    f"size {dtype.itemsize}"
                )
            count = int(self.size) // dtype.itemsize
        if count < 0 or int(self.ptr) < 0:
            raise NcclInvalid("Buffer: ptr and size/count must not be negative")
        device_type = DeviceType.CPU if self.device < 0 else DeviceType.CUDA
        return ResolvedBuffer(int(self.ptr), count, dtype, device_type, int(self.device))


# Enum members by value: calling the Enum class costs ~0.3 us per lookup,
# paid on every send/recv/collective call otherwise.
_DTYPE_BY_VALUE = {member.value: member for member in NcclDataType}
_DEVICE_TYPE_BY_VALUE = {member.value: member for member in DeviceType}


def _from_desc(desc: tuple) -> ResolvedBuffer:
    ptr, count, dtype, device_type, device_id = desc
    dtype_member = _DTYPE_BY_VALUE.get(dtype)
    if dtype_member is None:  # not a member: let the Enum raise its error
        dtype_member = NcclDataType(dtype)
    device_member = _DEVICE_TYPE_BY_VALUE.get(device_type)
    if device_member is None:
        device_member = DeviceType(device_type)
    return ResolvedBuffer(ptr, count, dtype_member, device_member, device_id)


def _resolve_interface(iface: dict, device_id: int) -> ResolvedBuffer:
    """Resolves a (CUDA) array-interface dict through C."""
    data = iface.get("data")
    ptr = data[0] if isinstance(data, tuple) else data
    if ptr is None:
        raise NcclInvalid("buffer: array interface without a data pointer")
    return _from_desc(
        raw.ncore_buffer_resolve_array_interface(
            int(ptr), list(iface["shape"]), iface.get("strides"), iface["typestr"], device_id
        )
    )


def _cai_device(obj: Any) -> int:
    """The CUDA device of a __cuda_array_interface__ object. CAI itself does not
    say; ask __dlpack_device__, then a `.device` with `.id` (cupy) or `.index`
    (torch), then `.device_id` (cuda.core, ncore's MemoryAllocation).

    Raises:
        NcclInvalid: none of them says: guessing would let memory of one
            device pass as another's.
    """
    dl_device = getattr(obj, "__dlpack_device__", None)
    if dl_device is not None:
        try:
            return int(dl_device()[1])
        except Exception:  # noqa: BLE001 - a producer without a usable answer
            pass
    device = getattr(obj, "device", None)
    for attribute in ("id", "index"):
        value = getattr(device, attribute, None)
        if isinstance(value, int):
            return value
    value = getattr(obj, "device_id", None)
    if isinstance(value, int):
        return value
    raise NcclInvalid(
        f"buffer: a {type(obj).__name__} has __cuda_array_interface__ but does not say "
        "its device (no __dlpack_device__, .device.id, .device.index or .device_id)")


def _bool_as_uint8(obj: Any) -> Any:
    """A bool array or tensor viewed as uint8 (nccl.core sends bools as
    UINT8: NCCL has no bool type); anything else as it is."""
    dtype = getattr(obj, "dtype", None)
    if dtype is None:
        return obj
    if getattr(dtype, "kind", None) == "b":  # NumPy, CuPy
        return obj.view("uint8")
    if type(dtype).__module__ == "torch" and str(dtype) == "torch.bool":
        import torch

        return obj.view(torch.uint8)
    return obj


def resolve_buffer(obj: Any) -> ResolvedBuffer:
    """Resolves a buffer specification to (ptr, count, dtype, device_type,
    device_id).

    Order: ResolvedBuffer / :class:`Buffer`; ``__dlpack__`` (read without
    consuming the capsule); ``__cuda_array_interface__``;
    ``__array_interface__``. A producer whose ``__dlpack__`` refuses (NumPy
    refuses read-only arrays) falls through to the interfaces.

    Raises:
        NcclInvalid: not a buffer, non-contiguous, unsupported dtype
            (complex), unsupported device (messages from the C resolver).
            Bool arrays and tensors are viewed as UINT8.
    """
    if isinstance(obj, ResolvedBuffer):
        return obj
    if isinstance(obj, Buffer):
        return obj.resolve()
    obj = _bool_as_uint8(obj)
    dlpack = getattr(obj, "__dlpack__", None)
    if dlpack is not None:
        try:
            capsule = dlpack()
        except (BufferError, TypeError, RuntimeError, ValueError):
            capsule = None
        if capsule is not None:
            return _from_desc(raw.ncore_buffer_resolve_dlpack(capsule))
    cai = getattr(obj, "__cuda_array_interface__", None)
    if cai is not None:
        return _resolve_interface(cai, _cai_device(obj))
    nai = getattr(obj, "__array_interface__", None)
    if nai is not None:
        return _resolve_interface(nai, -1)
    raise NcclInvalid(
        f"buffer: a {type(obj).__name__} is not a buffer (it has no __dlpack__, "
        "__cuda_array_interface__ or __array_interface__)"
    )


class Stream:
    """A stream made by ncore_stream_create (a CUDA stream on the NCCL
    backend, an ordering token on the host backend). Usable wherever a
    stream is accepted; a context manager that destroys it on exit."""

    def __init__(self, backend: Backend | int = Backend.AUTO) -> None:
        self.backend = Backend.resolve(backend)
        self._handle = raw.ncore_stream_create(int(self.backend))

    @property
    def handle(self) -> int:
        """The stream's address (cudaStream_t / host token); 0 once closed."""
        return self._handle

    def __cuda_stream__(self) -> tuple[int, int]:
        """The CUDA stream protocol: (version 0, handle)."""
        return (0, self._handle)

    def synchronize(self) -> None:
        """Waits for all work enqueued on the stream."""
        raw.ncore_stream_synchronize(self._handle, int(self.backend))

    def close(self) -> None:
        """Destroys the stream. Idempotent."""
        if self._handle:
            handle, self._handle = self._handle, 0
            raw.ncore_stream_destroy(handle, int(self.backend))

    def __enter__(self) -> "Stream":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def resolve_stream(stream: Any) -> int:
    """A stream argument as an address: None (default stream) -> 0; an int;
    an object with ``__cuda_stream__`` (method or attribute giving
    (version, handle)); torch's ``cuda_stream``; cupy's ``ptr``.

    Raises:
        NcclInvalid: anything else.
    """
    if stream is None:
        return 0
    if isinstance(stream, bool):
        raise NcclInvalid("stream: a bool is not a stream")
    if isinstance(stream, int):
        return stream
    protocol = getattr(stream, "__cuda_stream__", None)
    if protocol is not None:
        value = protocol() if callable(protocol) else protocol
        if isinstance(value, tuple) and len(value) == 2:
            return int(value[1])
        raise NcclInvalid("stream: __cuda_stream__ must give (version, handle)")
    for attribute in ("cuda_stream", "ptr"):
        value = getattr(stream, attribute, None)
        if isinstance(value, int):
            return value
    raise NcclInvalid(f"stream: a {type(stream).__name__} is not a stream")
