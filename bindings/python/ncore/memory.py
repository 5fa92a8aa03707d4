"""Communication memory from ncore_mem_alloc (NCCL: ncclMemAlloc; host:
shared memory every rank can map, so windows over it have real peer
pointers), owned by a Python object that frees it when garbage-collected."""

from __future__ import annotations

import sys
from ._lib import raw
from ._types import Backend

__all__ = ["MemoryAllocation", "mem_alloc", "mem_free"]


class MemoryAllocation:
    """`nbytes` bytes from ncore_mem_alloc on `backend` (AUTO resolves now).

    Exposes the memory as a flat uint8 array through ``__array_interface__``
    (host backend) or ``__cuda_array_interface__`` (NCCL backend), so
    frameworks can view it without copying; every view keeps this object, and
    so the memory, alive. Freed by close() or when garbage-collected."""

    def __init__(self, nbytes: int, backend: Backend | int = Backend.AUTO,
                 device: int | None = None) -> None:
        self.backend = Backend.resolve(backend)
        self.nbytes = int(nbytes)
        self.device = -1
        if self.backend == Backend.NCCL:
            self.device = raw.ncore_device_get(int(self.backend)) if device is None else int(device)
        # ncore_mem_alloc rejects 0 bytes; an empty array still needs an address.
        self.ptr = self._allocate(max(self.nbytes, 1))

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


def mem_alloc(size: int, backend: Backend | int = Backend.AUTO) -> MemoryAllocation:
    """Allocates `size` bytes of communication memory (ncclMemAlloc)."""
    return MemoryAllocation(size, backend)


def mem_free(allocation: MemoryAllocation) -> None:
    """Frees memory from mem_alloc now (optional: GC frees it too)."""
    allocation.close()
