"""CuPy interop: arrays on ncore_mem_alloc memory (``empty``), the resolver
(``resolve_array``), and NVSHMEM-style symmetric arrays (``array``,
``bytearray``, ``free_array``, ``array_get_buffer``, ``get_peer_array``).
cupy is imported on first use; without it every function raises
ModuleNotFoundError."""

from __future__ import annotations

import math
from typing import Any, Literal, Optional

from .. import symmetric
from .._errors import NcclInvalid
from .._types import Backend, NcclDataType
from ..buffer import Buffer, resolve_buffer
from ..memory import MemoryAllocation

__all__ = ["empty", "resolve_array", "array", "bytearray", "free_array",
           "array_get_buffer", "get_peer_array"]


def _cupy() -> Any:
    import cupy  # ModuleNotFoundError when CuPy is not installed

    return cupy


def _shape(shape: Any) -> tuple:
    return (int(shape),) if isinstance(shape, int) else tuple(int(s) for s in shape)


def _view(cupy: Any, holder: Any, shape: tuple, dtype: Any, order: str = "C",
          offset: int = 0, strides: Any = None) -> Any:
    """A cupy array over holder's device memory (no copy); the memory object
    owns `holder`, keeping it alive as long as the array lives."""
    memory = cupy.cuda.UnownedMemory(holder.ptr, max(holder.nbytes, 1), holder, holder.device)
    pointer = cupy.cuda.MemoryPointer(memory, offset)
    return cupy.ndarray(shape, dtype=dtype, memptr=pointer, order=order, strides=strides)


def empty(shape: Any, dtype: Any = float, order: Literal["C", "F"] = "C") -> Any:
    """An uninitialised array on ncore_mem_alloc (ncclMemAlloc) memory of the
    current device, freed when garbage-collected.

    Raises:
        NcclInvalid: order is not 'C' or 'F'.
        ModuleNotFoundError: CuPy is not installed.
    """
    cupy = _cupy()
    if order not in ("C", "F"):
        raise NcclInvalid(f"order: {order!r} is not 'C' or 'F'")
    dtype = cupy.dtype(dtype)
    shape = _shape(shape)
    holder = MemoryAllocation(math.prod(shape) * dtype.itemsize, Backend.NCCL,
                              cupy.cuda.runtime.getDevice(), empty_ok=True)
    return _view(cupy, holder, shape, dtype, order)


def resolve_array(array: Any) -> tuple[int, int, NcclDataType, int]:
    """(ptr, count, dtype, device_id) of a CuPy array, resolved by the C core
    from its CUDA array interface.

    Raises:
        ModuleNotFoundError: CuPy is not installed.
        NcclInvalid: not a cupy.ndarray, or its dtype has no ncore equivalent.
    """
    cupy = _cupy()
    if not isinstance(array, cupy.ndarray):
        raise NcclInvalid(f"array: expected a cupy.ndarray, got {type(array).__name__}")
    resolved = resolve_buffer(array)
    return resolved.ptr, resolved.count, resolved.dtype, resolved.device_id


def array(shape: Any, dtype: Any = "float32", comm: Any = None) -> Any:
    """A symmetric array allocated collectively on every PE (zeroed); free it
    with free_array. comm defaults to the one given to ncore.symmetric.init."""
    cupy = _cupy()
    dtype = cupy.dtype(dtype)
    shape = _shape(shape)
    memory = symmetric.alloc(math.prod(shape) * dtype.itemsize, comm, empty_ok=True)
    return _view(cupy, memory, shape, dtype)


def bytearray(shape: Any, dtype: Any = "float32", device_id: Optional[int] = None,
              comm: Any = None) -> Any:
    """A symmetric flat uint8 array sized for `shape` elements of `dtype`.
    Later .view() calls should use copy=False. device_id: None, or the
    communicator's device (the symmetric heap lives there).

    Raises:
        ModuleNotFoundError: CuPy is not installed.
        NcclInvalid: device_id is not the communicator's device.
    """
    cupy = _cupy()
    device = symmetric.device_of(comm)
    if device_id is not None and int(device_id) != device:
        raise NcclInvalid(f"device_id: {device_id} is not the communicator's device {device}")
    nbytes = math.prod(_shape(shape)) * cupy.dtype(dtype).itemsize
    memory = symmetric.alloc(nbytes, comm, empty_ok=True)
    return _view(cupy, memory, (nbytes,), cupy.uint8)


def free_array(array: Any) -> None:
    """Frees a symmetric array (local).

    Raises:
        NcclInvalid: not a live symmetric array.
    """
    symmetric.free(array)


def array_get_buffer(array: Any) -> tuple[Buffer, int, str]:
    """(Buffer of the symmetric allocation, its size in bytes, dtype name)."""
    return symmetric.buffer_of(array)


def get_peer_array(array: Any, peer_pe: Optional[int] = None) -> Optional[Any]:
    """The same array on PE `peer_pe` (default: this PE) through its peer
    pointer; None if that PE is not load/store reachable."""
    cupy = _cupy()
    found = symmetric.peer_memory(array, peer_pe)
    if found is None:
        return None
    holder, offset = found
    return _view(cupy, holder, array.shape, array.dtype, offset=offset,
                 strides=array.strides)
