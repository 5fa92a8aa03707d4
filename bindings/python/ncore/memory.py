"""Communication memory from ncore_mem_alloc (NCCL: ncclMemAlloc; host:
shared memory every rank can map, so windows over it have real peer
pointers), owned by a Python object that frees it when garbage-collected;
and copies / fills of buffers on either backend (ncore_memcpy /
ncore_memset), for programs without a CUDA library of their own."""

from __future__ import annotations

import sys
from typing import Any, Optional

from ._compat import MISSING, one_of
from ._errors import NcclInvalid
from ._lib import raw
from ._types import Backend, MemcpyKind
from .buffer import resolve_buffer, resolve_stream, writable
from .typing import NcclBufferSpec, NcclDeviceSpec, NcclStreamSpec

__all__ = ["MemoryAllocation", "mem_alloc", "mem_free", "memcpy", "memset"]


class MemoryAllocation:
    """`nbytes` bytes from ncore_mem_alloc on `backend` (AUTO resolves now),
    on `device` (NCCL: a CUDA ordinal, None = the current device; the host
    backend's memory is on device -1). `nbytes` is what ncore_mem_alloc
    takes (> 0; NcclInvalid naming it otherwise), or 0 with ``empty_ok``
    (the memory of an empty array, which still needs an address: one byte
    is allocated, ``size`` stays 0).

    Exposes the memory as a flat uint8 array through ``__array_interface__``
    (host backend) or ``__cuda_array_interface__`` (NCCL backend), so
    frameworks can view it without copying; every view keeps this object, and
    so the memory, alive. Freed by close() or when garbage-collected. Has
    cuda.core Buffer's ``handle``, ``size``, ``device_id``,
    ``is_device_accessible`` and ``is_host_accessible`` (mem_alloc's result
    in nccl.core is a cuda.core Buffer)."""

    def __init__(self, nbytes: int, backend: Backend | int = Backend.AUTO,
                 device: int | None = None, *, empty_ok: bool = False) -> None:
        self.ptr = 0  # what __del__ sees if the allocation below fails
        self.backend = Backend.resolve(backend)
        self.nbytes = int(nbytes)
        self.device = -1
        if self.backend == Backend.NCCL:
            self.device = raw.ncore_device_get(int(self.backend)) if device is None else int(device)
        elif device is not None and int(device) != -1:
            raise NcclInvalid(f"device: {device} on the host backend, whose memory is "
                              "not on a CUDA device (give None or -1)")
        self.ptr = self._allocate(1 if empty_ok and self.nbytes == 0 else self.nbytes)

    @property
    def handle(self) -> int:
        """The memory's address (0 once closed)."""
        return self.ptr

    @property
    def size(self) -> int:
        """Size in bytes as requested."""
        return self.nbytes

    @property
    def device_id(self) -> int:
        """CUDA ordinal of the memory; -1 on the host backend."""
        return self.device

    @property
    def is_device_accessible(self) -> bool:
        """Whether kernels can use it: device memory (NCCL backend)."""
        return self.backend == Backend.NCCL

    @property
    def is_host_accessible(self) -> bool:
        """Whether the CPU can use it: host backend memory."""
        return self.backend != Backend.NCCL

    def _allocate(self, nbytes: int) -> int:
        if self.backend != Backend.NCCL:
            return raw.ncore_mem_alloc(nbytes, int(self.backend))
        previous = raw.ncore_device_get(int(self.backend))
        raw.ncore_device_set(int(self.backend), self.device)
        try:
            return raw.ncore_mem_alloc(nbytes, int(self.backend))
        finally:
            raw.ncore_device_set(int(self.backend), previous)

    def _interface(self) -> dict:
        return {"shape": (self.nbytes,), "typestr": "|u1", "data": (self.ptr, False),
                "strides": None, "version": 3}

    @property
    def __array_interface__(self) -> dict:
        if self.backend == Backend.NCCL:
            raise AttributeError("device memory has no __array_interface__")
        return self._interface()

    @property
    def __cuda_array_interface__(self) -> dict:
        if self.backend != Backend.NCCL:
            raise AttributeError("host memory has no __cuda_array_interface__")
        return self._interface()

    def close(self) -> None:
        """Frees the memory now (ncore_mem_free). Idempotent. Views made
        from it must not be used afterwards."""
        ptr, self.ptr = self.ptr, 0
        if ptr and raw is not None:
            raw.ncore_mem_free(ptr, int(self.backend))

    def __del__(self) -> None:
        # At interpreter shutdown the module may be half torn down; the
        # process's memory goes with it then.
        if sys is not None and not sys.is_finalizing():
            self.close()


def mem_alloc(size: int, device: Optional[NcclDeviceSpec] = None, *,
              backend: Backend | int = Backend.AUTO) -> MemoryAllocation:
    """Allocates `size` bytes of communication memory (ncclMemAlloc) on
    `device` (an ordinal, a Device or cuda.core.Device, or None = the current
    device) of `backend` (keyword: AUTO resolves as for Communicator.init).

    Raises:
        NcclInvalid: a device on the host backend; what the library refuses
            (size 0 or negative, a device out of range).
    """
    if isinstance(device, Backend):
        raise NcclInvalid(f"device: got {device!r}; the backend is a keyword: "
                          "mem_alloc(size, backend=...)")
    if device is not None:
        from .cuda import get_device_id

        device = get_device_id(device)
    return MemoryAllocation(size, backend, device)


def mem_free(buf: MemoryAllocation = MISSING, *,
             allocation: MemoryAllocation = MISSING) -> None:
    """Frees memory from mem_alloc now (optional: GC frees it too).
    ``allocation=`` is ncore 1.1's name for `buf`."""
    one_of("mem_free", "buf", buf, "allocation", allocation).close()


def _byte_count(nbytes: Optional[int], default: int, limits: dict) -> int:
    """nbytes (default: `default`), checked against each buffer's size: the C
    call has only pointers, so this is the one place the sizes are known."""
    count = default if nbytes is None else int(nbytes)
    if count < 0:
        raise NcclInvalid(f"nbytes: {count} is negative")
    for name, size in limits.items():
        if count > size:
            raise NcclInvalid(f"{name}: {count} bytes do not fit in its {size} bytes")
    return count


def memcpy(dst: NcclBufferSpec, src: NcclBufferSpec, nbytes: Optional[int] = None,
           kind: MemcpyKind | int = MemcpyKind.DEFAULT, stream: Optional[NcclStreamSpec] = None,
           backend: Backend | int = Backend.AUTO) -> None:
    """Copies `nbytes` bytes (default: all of src) from src to dst, ordered on
    stream (ncore_memcpy). dst and src are any buffers (arrays, tensors,
    :class:`MemoryAllocation`, :class:`~ncore.Buffer`). Asynchronous on NCCL:
    synchronize the stream before reading dst on the host.

    Raises:
        NcclInvalid: nbytes negative or larger than either buffer; dst
            read-only; what the library refuses (unknown kind, bad stream).
    """
    d, s = writable(resolve_buffer(dst), "dst"), resolve_buffer(src)
    count = _byte_count(nbytes, s.nbytes, {"dst": d.nbytes, "src": s.nbytes})
    raw.ncore_memcpy(d.ptr, s.ptr, count, int(kind), resolve_stream(stream), int(backend))


def memset(dst: NcclBufferSpec, value: int, nbytes: Optional[int] = None, stream: Optional[NcclStreamSpec] = None,
           backend: Backend | int = Backend.AUTO) -> None:
    """Sets `nbytes` bytes (default: all of dst) to ``value & 0xff``, ordered
    on stream (ncore_memset).

    Raises:
        NcclInvalid: nbytes negative or larger than dst; dst read-only; what
            the library refuses.
    """
    d = writable(resolve_buffer(dst), "dst")
    count = _byte_count(nbytes, d.nbytes, {"dst": d.nbytes})
    raw.ncore_memset(d.ptr, int(value), count, resolve_stream(stream), int(backend))
