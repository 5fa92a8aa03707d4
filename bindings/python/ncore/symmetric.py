"""Symmetric memory in the NVSHMEM style (nvshmem.core interop pages).

nvshmem.core has one global world; ncore mirrors it with a global
communicator: call ``ncore.symmetric.init(comm)`` (also ``ncore.init(comm)``)
once, then the helpers of ncore.interop.numpy / .torch / .cupy allocate
collectively on it (every function also takes ``comm=`` to use another one).
A PE is a rank of that communicator.

Symmetric objects should be freed explicitly (free_array / free_tensor).
One that is garbage-collected while still allocated triggers the GC policy
(``set_gc_policy``): "raise" (the default, as nvshmem.core: "an Exception
will be raised when the garbage collector finds them") raises
NcclInvalidUsage from the finalizer, which Python reports as "Exception
ignored in ..." since a finalizer cannot propagate it; "warn" issues a
SymmetricMemoryWarning instead; "ignore" says nothing. The memory itself stays
allocated until finalize() or program exit (atexit), because peers may still
write into it -- NVSHMEM's "unfreed objects are safely freed at program exit".
"""

from __future__ import annotations

import atexit
import sys
import warnings
import weakref
from typing import Any, Optional

from ._errors import NcclInvalid, NcclInvalidUsage
from ._lib import raw
from ._types import Backend
from .buffer import Buffer, resolve_buffer, resolve_stream, writable
from .typing import NcclBufferSpec, NcclStreamSpec

from .communicator import Communicator

__all__ = [
    "init", "finalize", "my_pe", "n_pes", "is_initialized", "set_gc_policy", "device_of",
    "SymmetricMemory", "SymmetricMemoryWarning", "alloc", "free", "find",
    "put", "get", "peer_memory",
]


class SymmetricMemoryWarning(ResourceWarning):
    """A symmetric object was garbage-collected without being freed."""


class _State:
    comm: Optional[Communicator] = None
    gc_policy: str = "raise"
    # Handles of every allocation not yet freed (released at finalize/exit),
    # and the Python objects of those still referenced (weakly, so that an
    # unfreed object can be garbage-collected and reported).
    unfreed: set = set()
    objects: "weakref.WeakValueDictionary[int, SymmetricMemory]" = weakref.WeakValueDictionary()


def _free_handle(handle: int) -> None:
    """Frees one allocation by handle (idempotent in C)."""
    _State.unfreed.discard(handle)
    _State.objects.pop(handle, None)
    raw.ncore_symmetric_free(handle)


def init(comm: Communicator) -> None:
    """Makes `comm` the world of the symmetric helpers (nvshmem.core.init)."""
    if not isinstance(comm, Communicator) or not comm.is_valid:
        raise NcclInvalid("comm: expected a live Communicator")
    _State.comm = comm


def finalize() -> None:
    """Frees every symmetric allocation still open and forgets the world
    communicator (nvshmem.core.finalize). Idempotent."""
    for handle in list(_State.unfreed):
        memory = _State.objects.get(handle)
        if memory is not None:
            memory.free()
        else:
            _free_handle(handle)
    _State.comm = None


def is_initialized() -> bool:
    """Whether init() was called (and finalize() not since)."""
    return _State.comm is not None


def _comm(comm: Optional[Communicator] = None) -> Communicator:
    comm = comm if comm is not None else _State.comm
    if comm is None:
        raise NcclInvalidUsage(
            "symmetric memory needs a communicator: call ncore.symmetric.init(comm) "
            "(or ncore.init(comm)) first, or pass comm=")
    return comm


def my_pe(comm: Optional[Communicator] = None) -> int:
    """This PE (rank of the world communicator)."""
    return _comm(comm).rank


def n_pes(comm: Optional[Communicator] = None) -> int:
    """Number of PEs."""
    return _comm(comm).nranks


def device_of(comm: Optional[Communicator] = None) -> int:
    """The device ordinal of the symmetric heap: the world (or given)
    communicator's (-1 on the host backend). An int, where
    Communicator.device is a cuda.core Device (nccl.core's)."""
    return raw.ncore_comm_device(_comm(comm)._live())


def set_gc_policy(policy: str) -> None:
    """What happens when an unfreed symmetric object is garbage-collected:
    "raise" (default), "warn" or "ignore".

    Raises:
        NcclInvalid: another policy name.
    """
    if policy not in ("warn", "raise", "ignore"):
        raise NcclInvalid(f"policy: {policy!r} is not one of 'warn', 'raise', 'ignore'")
    _State.gc_policy = policy


def _interface(ptr: int, nbytes: int) -> dict:
    return {"shape": (nbytes,), "typestr": "|u1", "data": (ptr, False),
            "strides": None, "version": 3}


class _ArrayInterfaces:
    """The array interface of memory at self.ptr, self.nbytes long: NumPy's
    for the host backend's, CUDA's for the NCCL backend's."""

    ptr: int
    nbytes: int
    backend: Backend

    @property
    def __array_interface__(self) -> dict:
        if self.backend == Backend.NCCL:
            raise AttributeError("device memory has no __array_interface__")
        return _interface(self.ptr, self.nbytes)

    @property
    def __cuda_array_interface__(self) -> dict:
        if self.backend != Backend.NCCL:
            raise AttributeError("host memory has no __cuda_array_interface__")
        return _interface(self.ptr, self.nbytes)


class SymmetricMemory(_ArrayInterfaces):
    """One symmetric allocation (ncore_symmetric_alloc): this PE's part,
    exposed as a flat uint8 array interface (host) or CUDA array interface
    (NCCL) so that frameworks can view it; every view keeps it alive."""

    def __init__(self, nbytes: int, comm: Optional[Communicator] = None, *, empty_ok: bool = False) -> None:
        # Set first: __del__ runs even when the allocation below raises.
        self.freed = True
        self.comm = _comm(comm)
        self.nbytes = int(nbytes)
        self.backend = self.comm.backend
        self.device = raw.ncore_comm_device(self.comm._live())  # the ordinal
        self.handle = raw.ncore_symmetric_alloc(
            self.comm._live(), 1 if empty_ok and self.nbytes == 0 else self.nbytes)
        self.freed = False
        self.ptr = raw.ncore_symmetric_local_pointer(self.handle)
        _State.unfreed.add(self.handle)
        _State.objects[self.handle] = self

    def contains(self, ptr: int) -> bool:
        """Whether `ptr` lies inside this PE's part."""
        return self.ptr <= ptr < self.ptr + max(self.nbytes, 1)

    def peer_pointer(self, pe: int) -> int:
        """Address of PE `pe`'s part as this PE sees it; 0 if not reachable."""
        return raw.ncore_symmetric_peer_pointer(self.handle, pe)

    @property
    def size(self) -> int:
        """Bytes of each PE's part as the library allocated them
        (ncore_symmetric_size; at least 1). Raises NcclClosed once freed."""
        return raw.ncore_symmetric_size(self.handle)

    def is_valid(self) -> bool:
        """Whether this PE's part is still allocated
        (ncore_symmetric_is_valid): False after free() or once its
        communicator was destroyed."""
        return bool(raw.ncore_symmetric_is_valid(self.handle))

    def free(self) -> None:
        """Frees this PE's part (ncore_symmetric_free). Idempotent."""
        if not self.freed:
            self.freed = True
            _free_handle(self.handle)

    def __del__(self) -> None:
        if self.freed or sys.is_finalizing():
            return
        # Not freed: the handle stays in _State.unfreed (peers may still write
        # to the memory) until finalize() / exit; tell the user.
        message = (f"symmetric memory of {self.nbytes} bytes was garbage-collected "
                   "without being freed (free_array / free_tensor); it is released "
                   "at finalize() or program exit")
        if _State.gc_policy == "warn":
            warnings.warn(message, SymmetricMemoryWarning, stacklevel=2)
        elif _State.gc_policy == "raise":
            raise NcclInvalidUsage(message)


class _PeerMemory(_ArrayInterfaces):
    """A view of PE `pe`'s part, keeping the local allocation alive."""

    def __init__(self, memory: SymmetricMemory, ptr: int) -> None:
        self._memory = memory
        self.ptr = ptr
        self.nbytes = memory.nbytes
        self.backend = memory.backend
        self.device = memory.device


def alloc(nbytes: int, comm: Optional[Communicator] = None, *, empty_ok: bool = False) -> SymmetricMemory:
    """Allocates `nbytes` on every PE (collective; contents zeroed).
    `nbytes` is what ncore_symmetric_alloc takes (> 0), or 0 with
    ``empty_ok`` (an empty array's: one byte each, so that it has an
    address).

    Raises:
        NcclInvalid: nbytes 0 (without empty_ok) or negative, and what the
            library refuses.
    """
    return SymmetricMemory(nbytes, comm, empty_ok=empty_ok)


def find(obj: NcclBufferSpec) -> tuple[SymmetricMemory, int]:
    """The allocation a symmetric object (or any buffer inside one) lives in,
    and the byte offset of the buffer in it.

    Raises:
        NcclInvalid: the buffer is not symmetric memory (or was freed).
    """
    ptr = resolve_buffer(obj).ptr
    for memory in list(_State.objects.values()):
        if not memory.freed and memory.contains(ptr):
            return memory, ptr - memory.ptr
    raise NcclInvalid("buffer: is not live symmetric memory (allocate it with "
                      "interop.*.array / tensor, and do not use it after free)")


def free(obj: NcclBufferSpec) -> None:
    """Frees the symmetric allocation `obj` is a view of (free_array /
    free_tensor).

    Raises:
        NcclInvalid: obj is not symmetric memory or was already freed.
    """
    memory, offset = find(obj)
    memory.free()


def buffer_of(obj: NcclBufferSpec) -> tuple[Buffer, int, str]:
    """(Buffer of the whole allocation, its size in bytes, dtype name of
    obj) -- array_get_buffer / tensor_get_buffer."""
    memory, _ = find(obj)
    resolved = resolve_buffer(obj)
    buffer = Buffer(memory.ptr, size=memory.nbytes, device=memory.device)
    return buffer, memory.nbytes, resolved.dtype.type_name


def peer_memory(obj: NcclBufferSpec, pe: Optional[int]) -> Optional[tuple[_PeerMemory, int]]:
    """(view holder of PE `pe`'s allocation, byte offset of obj in it), or
    None when that PE is not load/store reachable. pe None = this PE."""
    memory, offset = find(obj)
    pe = memory.comm.rank if pe is None else pe
    ptr = memory.peer_pointer(pe)
    if not ptr:
        return None
    return _PeerMemory(memory, ptr), offset


def put(dst: NcclBufferSpec, src: NcclBufferSpec, count: Optional[int] = None, pe: Optional[int] = None,
        stream: Optional[NcclStreamSpec] = None) -> None:
    """Copies `count` elements (default: all of src) of local `src` into PE
    `pe`'s copy of symmetric `dst` (nvshmem put). Complete at the target
    after a synchronisation (a barrier collective, a signal).

    Raises:
        NcclInvalid: dst not symmetric, pe missing or out of range, count
            larger than src, beyond the allocation.
    """
    if pe is None:
        raise NcclInvalid("pe: the target PE is required")
    memory, offset = find(dst)
    source = resolve_buffer(src)
    count = source.count if count is None else int(count)
    if count < 0 or count > source.count:
        raise NcclInvalid(f"count: {count} is not in [0, {source.count}] (src's size)")
    raw.ncore_symmetric_put(memory.handle, offset, source.ptr,
                            count * source.dtype.itemsize, pe, resolve_stream(stream))


def get(dst: NcclBufferSpec, src: NcclBufferSpec, count: Optional[int] = None, pe: Optional[int] = None,
        stream: Optional[NcclStreamSpec] = None) -> None:
    """Copies `count` elements (default: all of dst) of PE `pe`'s copy of
    symmetric `src` into local `dst` (nvshmem get).

    Raises:
        NcclInvalid: as put, with the roles of dst and src exchanged; dst
            read-only.
    """
    if pe is None:
        raise NcclInvalid("pe: the source PE is required")
    memory, offset = find(src)
    target = writable(resolve_buffer(dst), "dst")
    count = target.count if count is None else int(count)
    if count < 0 or count > target.count:
        raise NcclInvalid(f"count: {count} is not in [0, {target.count}] (dst's size)")
    raw.ncore_symmetric_get(target.ptr, memory.handle, offset,
                            count * target.dtype.itemsize, pe, resolve_stream(stream))


def _release_at_exit() -> None:
    """Frees what is still allocated before the library goes away (marking
    the live objects freed, so their finalizers stay quiet)."""
    try:
        finalize()
    except Exception:  # noqa: BLE001 - exit must not fail on cleanup
        for handle in list(_State.unfreed):
            try:
                _free_handle(handle)
            except Exception:  # noqa: BLE001
                pass
    _State.comm = None


atexit.register(_release_at_exit)
