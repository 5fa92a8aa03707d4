"""What a buffer is (:class:`ResolvedBuffer`, the C ABI's view; an
explicit :class:`Buffer`) and the full path of resolving any other object
through C: ``__dlpack__`` (DLPack 1.0 where the producer has it, for its
read-only flag), ``__cuda_array_interface__``, ``__array_interface__``.
Resolution happens in C (ncore_buffer_resolve_dlpack /
ncore_buffer_resolve_array_interface), so every language accepts and
rejects the same buffers with the same messages."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, NamedTuple, Optional

from ._errors import NcclInvalid
from ._lib import raw
from ._types import DeviceType, NcclDataType

__all__ = ["Buffer", "ResolvedBuffer", "resolve_uncached"]

# Producer types remembered as pre-DLPack-1.0 before the set starts again.
_LEGACY_LIMIT = 4096


class ResolvedBuffer(NamedTuple):
    """A buffer as the C ABI sees it (ncore_buffer_desc_t), and whether its
    producer said it must not be written (read_only), which only Python
    knows."""

    ptr: int
    count: int
    dtype: NcclDataType
    device_type: DeviceType
    device_id: int
    read_only: bool = False

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


def _from_desc(desc: tuple, read_only: bool = False) -> ResolvedBuffer:
    ptr, count, dtype, device_type, device_id = desc
    dtype_member = _DTYPE_BY_VALUE.get(dtype)
    if dtype_member is None:  # not a member: let the Enum raise its error
        dtype_member = NcclDataType(dtype)
    device_member = _DEVICE_TYPE_BY_VALUE.get(device_type)
    if device_member is None:
        device_member = DeviceType(device_type)
    return ResolvedBuffer(ptr, count, dtype_member, device_member, device_id, read_only)


def _resolve_interface(iface: dict, device_id: int) -> ResolvedBuffer:
    """Resolves a (CUDA) array-interface dict through C. Its data is
    (pointer, read-only flag) (both interfaces, version 3); a bare pointer
    (an object with its own buffer) says nothing, so counts as writable."""
    data = iface.get("data")
    ptr = data[0] if isinstance(data, tuple) else data
    if ptr is None:
        raise NcclInvalid("buffer: array interface without a data pointer")
    read_only = isinstance(data, tuple) and len(data) > 1 and bool(data[1])
    return _from_desc(
        raw.ncore_buffer_resolve_array_interface(
            int(ptr), list(iface["shape"]), iface.get("strides"), iface["typestr"], device_id
        ),
        read_only,
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


# DLPack 1.0's capsules say whether their memory may be written
# (DLPACK_FLAG_BITMASK_READ_ONLY in their flags); older ones cannot, so a
# producer such as NumPy refuses to export a read-only array in them.
_DLPACK_VERSION = (1, 0)
_DLPACK_FLAG_READ_ONLY = 1
# Producer types whose __dlpack__ refused max_version (older than DLPack
# 1.0's protocol): asked without it from then on, an exception per call saved.
_LEGACY_DLPACK: set = set()


def _export_dlpack(obj: Any, dlpack: Callable[..., Any]) -> tuple:
    """(a DLPack capsule of obj, or None when the producer refuses; whether
    it was asked for as DLPack 1.0). A DLPack 1.0 capsule (max_version) is
    asked for first, since only it tells a read-only tensor. A CUDA producer
    is asked for no synchronisation (stream=-1): resolution only reads the
    address and shape, and the call itself is ordered on the caller's
    stream; without it torch makes its default stream wait for the current
    one (an event record and wait on every call)."""
    cuda = False
    device = getattr(obj, "__dlpack_device__", None)
    if device is not None:
        try:
            cuda = device()[0] in (2, 13)  # kDLCUDA, kDLCUDAManaged
        except (BufferError, TypeError, RuntimeError, ValueError):
            pass  # a producer without a usable answer: ask plainly
    kind = type(obj)
    if kind not in _LEGACY_DLPACK:
        try:
            if cuda:
                return dlpack(max_version=_DLPACK_VERSION, stream=-1), True
            return dlpack(max_version=_DLPACK_VERSION), True
        except TypeError:
            if len(_LEGACY_DLPACK) < _LEGACY_LIMIT:
                _LEGACY_DLPACK.add(kind)
        except (BufferError, RuntimeError, ValueError):
            pass
    if cuda:
        try:
            return dlpack(stream=-1), False
        except (BufferError, TypeError, RuntimeError, ValueError):
            pass  # a producer without the keyword or the value: ask plainly
    try:
        return dlpack(), False
    except (BufferError, TypeError, RuntimeError, ValueError):
        return None, False


def resolve_uncached(obj: Any) -> ResolvedBuffer:
    """obj resolved through C, every time (resolve_buffer's docstring says
    the order and what it raises)."""
    if isinstance(obj, ResolvedBuffer):
        return obj
    if isinstance(obj, Buffer):
        return obj.resolve()
    obj = _bool_as_uint8(obj)
    dlpack = getattr(obj, "__dlpack__", None)
    if dlpack is not None:
        capsule, versioned = _export_dlpack(obj, dlpack)
        if capsule is not None:
            # Only a DLPack 1.0 capsule has flags to read.
            read_only = versioned and bool(
                raw.ncore_py_dlpack_flags(capsule) & _DLPACK_FLAG_READ_ONLY)
            return _from_desc(raw.ncore_buffer_resolve_dlpack(capsule), read_only)
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
