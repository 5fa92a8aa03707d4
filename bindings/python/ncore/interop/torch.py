"""PyTorch interop: tensors on ncore_mem_alloc memory (``empty``), the
resolver (``resolve_tensor``), and NVSHMEM-style symmetric tensors
(``tensor``, ``bytetensor``, ``free_tensor``, ``tensor_get_buffer``,
``get_peer_tensor``). torch is imported on first use; without it every
function raises ModuleNotFoundError."""

from __future__ import annotations

import math
from typing import Any, Literal, Optional

from .. import symmetric
from .._errors import NcclInvalid
from .._types import Backend, NcclDataType
from ..buffer import Buffer
from ..memory import MemoryAllocation

__all__ = ["empty", "resolve_tensor", "tensor", "bytetensor", "free_tensor",
           "tensor_get_buffer", "get_peer_tensor"]


def _torch() -> Any:
    import torch  # ModuleNotFoundError when PyTorch is not installed

    return torch


def _dtype_map(torch: Any) -> dict:
    table = {
        torch.int8: NcclDataType.INT8, torch.uint8: NcclDataType.UINT8,
        torch.int32: NcclDataType.INT32, torch.int64: NcclDataType.INT64,
        torch.float16: NcclDataType.FLOAT16, torch.float32: NcclDataType.FLOAT32,
        torch.float64: NcclDataType.FLOAT64, torch.bfloat16: NcclDataType.BFLOAT16,
    }
    for name, value in (("uint32", NcclDataType.UINT32), ("uint64", NcclDataType.UINT64),
                        ("float8_e4m3fn", NcclDataType.FLOAT8E4M3),
                        ("float8_e5m2", NcclDataType.FLOAT8E5M2)):
        if hasattr(torch, name):
            table[getattr(torch, name)] = value
    return table


def _device_index(torch: Any, device: Any) -> int:
    """CUDA ordinal of a device spec (None = current device)."""
    if device is None:
        return torch.cuda.current_device()
    device = torch.device(f"cuda:{device}" if isinstance(device, int) else device)
    if device.type != "cuda":
        raise NcclInvalid(f"device: {device} is not a CUDA device")
    return device.index if device.index is not None else torch.cuda.current_device()


def _view(torch: Any, holder: Any, device: int, size: tuple, dtype: Any,
          order: str = "C", offset: int = 0) -> Any:
    """A tensor of `size`/`dtype` over holder's device memory, no copy. torch
    keeps `holder` (and so the memory) alive as long as the tensor lives."""
    flat = torch.as_tensor(holder, device=f"cuda:{device}")
    itemsize = torch.empty((), dtype=dtype).element_size()
    count = math.prod(size)
    typed = flat[offset:offset + count * itemsize].view(dtype)
    if order == "F" and len(size) > 1:
        strides, step = [], 1
        for extent in size:
            strides.append(step)
            step *= extent
        return typed.as_strided(size, strides)
    return typed.view(size)


def _size(size: tuple) -> tuple:
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    return tuple(int(s) for s in size)


def empty(*size: Any, dtype: Any = None, device: Any = None,
          morder: Literal["C", "F"] = "C") -> Any:
    """An uninitialised CUDA tensor on ncore_mem_alloc (ncclMemAlloc) memory,
    freed when garbage-collected.

    Raises:
        NcclInvalid: morder is not 'C' or 'F', or device is not a CUDA device.
        ModuleNotFoundError: PyTorch is not installed.
    """
    torch = _torch()
    if morder not in ("C", "F"):
        raise NcclInvalid(f"morder: {morder!r} is not 'C' or 'F'")
    dtype = dtype if dtype is not None else torch.get_default_dtype()
    index = _device_index(torch, device)
    size = _size(size)
    nbytes = math.prod(size) * torch.empty((), dtype=dtype).element_size()
    holder = MemoryAllocation(nbytes, Backend.NCCL, index, empty_ok=True)
    return _view(torch, holder, index, size, dtype, morder)


def resolve_tensor(tensor: Any) -> tuple[int, int, NcclDataType, int]:
    """(ptr, count, dtype, device_id) of a tensor (device_id -1 on the CPU).

    Raises:
        ModuleNotFoundError: PyTorch is not installed.
        NcclInvalid: not a torch.Tensor, its dtype has no ncore equivalent,
            or it is not contiguous.
    """
    torch = _torch()
    if not isinstance(tensor, torch.Tensor):
        raise NcclInvalid(f"tensor: expected a torch.Tensor, got {type(tensor).__name__}")
    dtype = _dtype_map(torch).get(tensor.dtype)
    if dtype is None:
        raise NcclInvalid(f"tensor: dtype {tensor.dtype} has no NCCL equivalent")
    if not tensor.is_contiguous():
        raise NcclInvalid("tensor: is not contiguous")
    device = tensor.device.index if tensor.device.type == "cuda" else -1
    if device is None:
        device = torch.cuda.current_device()
    return tensor.data_ptr(), tensor.numel(), dtype, device


def tensor(shape: Any, dtype: Any = None, comm: Any = None) -> Any:
    """A symmetric tensor, allocated collectively on every PE (zeroed) on the
    communicator's device; free it with free_tensor. dtype defaults to
    torch.float32; comm to the one given to ncore.symmetric.init."""
    torch = _torch()
    dtype = dtype if dtype is not None else torch.float32
    size = _size((shape,)) if not isinstance(shape, int) else (int(shape),)
    itemsize = torch.empty((), dtype=dtype).element_size()
    memory = symmetric.alloc(math.prod(size) * itemsize, comm, empty_ok=True)
    return _view(torch, memory, memory.device, size, dtype)


def bytetensor(shape: Any, dtype: Any = None, comm: Any = None) -> Any:
    """A symmetric flat uint8 tensor sized for `shape` elements of `dtype`."""
    torch = _torch()
    dtype = dtype if dtype is not None else torch.float32
    size = _size((shape,)) if not isinstance(shape, int) else (int(shape),)
    nbytes = math.prod(size) * torch.empty((), dtype=dtype).element_size()
    memory = symmetric.alloc(nbytes, comm, empty_ok=True)
    return torch.as_tensor(memory, device=f"cuda:{memory.device}")


def free_tensor(tensor: Any) -> None:
    """Frees a symmetric tensor (local).

    Raises:
        NcclInvalid: not a live symmetric tensor.
    """
    symmetric.free(tensor)


def tensor_get_buffer(tensor: Any) -> tuple[Buffer, int, str]:
    """(Buffer of the symmetric allocation, its size in bytes, dtype name)."""
    return symmetric.buffer_of(tensor)


def get_peer_tensor(tensor: Any, peer_pe: Optional[int] = None) -> Optional[Any]:
    """The same tensor on PE `peer_pe` (default: this PE) through its peer
    pointer (nvshmem_ptr); None if that PE is not load/store reachable."""
    torch = _torch()
    found = symmetric.peer_memory(tensor, peer_pe)
    if found is None:
        return None
    holder, offset = found
    return _view(torch, holder, holder.device, tuple(tensor.shape), tensor.dtype,
                 offset=offset)
