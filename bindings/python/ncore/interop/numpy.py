"""NumPy interop for the host backend: arrays on ncore_mem_alloc memory
(``empty``), the resolver (``resolve_array``), and NVSHMEM-style symmetric
arrays (``array``, ``bytearray``, ``free_array``, ``array_get_buffer``,
``get_peer_array``)."""

from __future__ import annotations

import math
from typing import Any, Literal, Optional, Sequence, Union

import numpy as np

from .. import symmetric
from .._errors import NcclInvalid
from .._types import Backend, NcclDataType
from ..buffer import Buffer, resolve_buffer
from ..memory import MemoryAllocation

__all__ = ["empty", "resolve_array", "array", "bytearray", "free_array",
           "array_get_buffer", "get_peer_array"]

Shape = Union[int, Sequence[int]]


def _shape(shape: Shape) -> tuple[int, ...]:
    return (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(s) for s in shape)


def _view(holder: Any, shape: tuple[int, ...], dtype: np.dtype, order: str = "C",
          offset: int = 0) -> np.ndarray:
    """An ndarray of `shape`/`dtype` over holder's memory (no copy); the
    array's base chain keeps the holder alive."""
    flat = np.asarray(holder)
    return np.ndarray(shape, dtype=dtype, buffer=flat, offset=offset, order=order)


def empty(shape: Shape, dtype: Any = float, order: Literal["C", "F"] = "C") -> np.ndarray:
    """An uninitialised array on ncore_mem_alloc memory of the host backend
    (shared memory: windows over it have real peer pointers). Freed when the
    array (and every view of it) is garbage-collected.

    Raises:
        NcclInvalid: order is not 'C' or 'F'.
    """
    if order not in ("C", "F"):
        raise NcclInvalid(f"order: {order!r} is not 'C' or 'F'")
    dtype = np.dtype(dtype)
    shape = _shape(shape)
    holder = MemoryAllocation(math.prod(shape) * dtype.itemsize, Backend.HOST, empty_ok=True)
    return _view(holder, shape, dtype, order)


def resolve_array(array: Any) -> tuple[int, int, NcclDataType, int]:
    """(ptr, count, dtype, device_id) of a NumPy array (device_id -1).

    Raises:
        NcclInvalid: not a NumPy ndarray, its dtype has no ncore equivalent,
            or it is not contiguous.
    """
    if not isinstance(array, np.ndarray):
        raise NcclInvalid(f"array: expected a numpy.ndarray, got {type(array).__name__}")
    resolved = resolve_buffer(array)
    return resolved.ptr, resolved.count, resolved.dtype, resolved.device_id


def array(shape: Shape, dtype: Any = "float32", comm: Any = None) -> np.ndarray:
    """A symmetric array: allocated collectively on every PE (zeroed), viewed
    with `shape`/`dtype`. Free it with free_array. comm: the communicator
    (default: the one given to ncore.symmetric.init)."""
    dtype = np.dtype(dtype)
    shape = _shape(shape)
    memory = symmetric.alloc(math.prod(shape) * dtype.itemsize, comm, empty_ok=True)
    return _view(memory, shape, dtype)


def bytearray(shape: Shape, dtype: Any = "float32", comm: Any = None) -> np.ndarray:
    """A symmetric flat uint8 array sized for `shape` elements of `dtype`.
    Later .view() calls should not copy it off the symmetric heap."""
    nbytes = math.prod(_shape(shape)) * np.dtype(dtype).itemsize
    return np.asarray(symmetric.alloc(nbytes, comm, empty_ok=True))


def free_array(array: np.ndarray) -> None:
    """Frees a symmetric array (local; the memory lives on until every PE
    freed it).

    Raises:
        NcclInvalid: not a live symmetric array.
    """
    symmetric.free(array)


def array_get_buffer(array: np.ndarray) -> tuple[Buffer, int, str]:
    """(Buffer of the symmetric allocation, its size in bytes, dtype name)."""
    return symmetric.buffer_of(array)


def get_peer_array(array: np.ndarray, peer_pe: Optional[int] = None) -> Optional[np.ndarray]:
    """The same array on PE `peer_pe` (default: this PE), viewed through its
    peer pointer (nvshmem_ptr); None if that PE is not load/store reachable."""
    found = symmetric.peer_memory(array, peer_pe)
    if found is None:
        return None
    holder, offset = found
    strides = array.strides if not array.flags.c_contiguous else None
    flat = np.asarray(holder)
    return np.ndarray(array.shape, dtype=array.dtype, buffer=flat, offset=offset,
                      strides=strides)
