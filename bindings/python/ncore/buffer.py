"""Buffers and streams: what nccl.core accepts as `sendbuf` / `recvbuf` /
`stream`, resolved to what the C ABI takes.

A buffer is anything with ``__dlpack__`` (NumPy on the host backend, torch,
cupy), ``__cuda_array_interface__`` or ``__array_interface__``, or an explicit
:class:`Buffer`, resolved in C (_buffer_resolve); the communicator then
checks the device with ncore_comm_check_buffer.

A call must cost little more than the C call it makes, so torch tensors
and CuPy arrays are answered from a cache (_buffer_cache) under what
their resolution depends on; the calls made most often (send, recv, the
collectives) go one step further with call_args: a communicator's own
table from those values straight to the C call's (pointer, count, dtype),
filled only by buffers that passed its device check.

Read-only memory (a NumPy array with writeable=False, one over a bytes
object, a DLPack 1.0 tensor flagged read-only, an array interface whose
data says so) resolves like any other buffer, marked read_only: C cannot
see that flag, so writable() here refuses it wherever a call would write
(every receive buffer, a window's memory, memcpy's and memset's dst, a
symmetric get's dst). Streams: _stream."""

from __future__ import annotations

from typing import Any, Dict, Tuple

from ._buffer_cache import CACHE_LIMIT, CHECKED, RESOLVED, cache_key, remember
from ._buffer_resolve import Buffer, ResolvedBuffer, resolve_uncached
from ._errors import NcclInvalid
from ._lib import raw
from ._stream import Stream, resolve_stream
from ._types import DeviceType
from .typing import NcclBufferSpec

__all__ = ["Buffer", "ResolvedBuffer", "Stream", "call_args", "resolve_buffer",
           "resolve_for_comm", "resolve_stream", "writable"]

#: (pointer, element count, dtype value): what a C call takes of a buffer.
CallArgs = Tuple[int, int, int]

_CPU = DeviceType.CPU


def __getattr__(name: str) -> Any:
    """mem_alloc / mem_free, where nccl.core.buffer has them (they live in
    ncore.memory, which imports this module)."""
    if name in ("mem_alloc", "mem_free"):
        from . import memory

        return getattr(memory, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def resolve_buffer(obj: NcclBufferSpec) -> ResolvedBuffer:
    """Resolves a buffer specification to (ptr, count, dtype, device_type,
    device_id).

    Order: ResolvedBuffer / :class:`Buffer`; ``__dlpack__`` (read without
    consuming the capsule; DLPack 1.0 where the producer has it);
    ``__cuda_array_interface__``; ``__array_interface__``. A producer whose
    ``__dlpack__`` refuses (NumPy before 2 refuses read-only arrays) falls
    through to the interfaces. ``read_only`` is what the producer says
    (DLPack 1.0's flag, the interfaces' data tuple). torch tensors
    and CuPy arrays already resolved with the same address, count, dtype and
    device are answered from the cache (_buffer_cache).

    Raises:
        NcclInvalid: not a buffer, non-contiguous, unsupported dtype
            (complex), unsupported device (messages from the C resolver).
            Bool arrays and tensors are viewed as UINT8.
    """
    key = cache_key(obj)
    if key is None:
        return resolve_uncached(obj)
    key = (type(obj), key)
    buf = RESOLVED.get(key)
    if buf is None:
        buf = resolve_uncached(obj)
        remember(RESOLVED, key, buf)
    return buf


def call_args(table: Dict[tuple, CallArgs], comm: int, obj: NcclBufferSpec,
              argument_name: str, writes: bool = False) -> CallArgs:
    """(pointer, element count, dtype value) of obj for communicator handle
    `comm`: resolve_for_comm's answer, kept in `table` (the communicator's
    own, so the device check it stands for is this communicator's) under
    the values the resolution depends on (cache_key), for torch tensors and
    CuPy arrays, unless the memory is read-only (so an entry serves a call
    that writes too). Anything else is resolved every call.

    Raises:
        NcclInvalid: as resolve_for_comm.
    """
    key = cache_key(obj)
    if key is not None:
        args = table.get(key)
        if args is not None:
            return args
    buf = resolve_for_comm(comm, obj, argument_name, writes)
    args = (buf.ptr, buf.count, int(buf.dtype))
    if key is not None and not buf.read_only:
        remember(table, key, args)
    return args


def resolve_for_comm(comm: int, obj: NcclBufferSpec, argument_name: str,
                     writes: bool = False) -> ResolvedBuffer:
    """Resolves obj (resolve_buffer) and checks that communicator handle
    `comm` can use it (ncore_comm_check_buffer: host memory on the host
    backend, the communicator's device on NCCL), asking C once per
    communicator and device; and, where the call `writes` into it, that it
    is not read-only (writable).

    Raises:
        NcclInvalid: as resolve_buffer, or the buffer is on another device,
            or read-only where the call writes.
    """
    buf = resolve_buffer(obj)
    if writes and buf.read_only:
        writable(buf, argument_name)
    # Plain values: hashing an Enum member runs Python code.
    checked = (comm, buf.device_id, buf.device_type is _CPU)
    if checked not in CHECKED:
        raw.ncore_comm_check_buffer(comm, buf.as_desc(), argument_name)
        if len(CHECKED) >= CACHE_LIMIT:
            CHECKED.clear()
        CHECKED.add(checked)
    return buf


def writable(buf: ResolvedBuffer, argument_name: str) -> ResolvedBuffer:
    """`buf`, for a call that writes into it; the one check that read-only
    memory is never a destination (C sees only the address).

    Raises:
        NcclInvalid: its producer marked it read-only (naming the argument).
    """
    if buf.read_only:
        raise NcclInvalid(f"{argument_name}: is read-only memory, and the call writes "
                          "into it; pass a writable buffer")
    return buf
