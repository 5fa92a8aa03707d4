"""Buffers and streams: what nccl.core accepts as `sendbuf` / `recvbuf` /
`stream`, resolved to what the C ABI takes.

A buffer is anything with ``__dlpack__`` (NumPy on the host backend, torch,
cupy), ``__cuda_array_interface__`` or ``__array_interface__``, or an explicit
:class:`Buffer`. Resolution happens in C (ncore_buffer_resolve_dlpack /
ncore_buffer_resolve_array_interface), so every language accepts and rejects
the same buffers with the same messages; the communicator then checks the
device with ncore_comm_check_buffer.

The per-call cost (issue 15): for torch tensors and CuPy arrays, what the C
resolver yields is cached under the values it depends on (address, element
count, dtype, device), read from the object on every call without a DLPack
export; a non-contiguous or grad-requiring tensor always takes the full
path (and its error). A communicator's device check is cached per
(communicator handle, device): handles are never reused, and a
communicator's device never changes. Only successes are cached, so every
failure still raises with the C message. The calls made most often (send,
recv, allreduce) go one step further with call_args: a communicator's own
table from those values straight to the C call's (pointer, count, dtype),
filled only by buffers that passed its device check.

Read-only memory (a NumPy array with writeable=False, one over a bytes
object, a DLPack 1.0 tensor flagged read-only, an array interface whose
data says so) resolves like any other buffer, marked read_only: C cannot
see that flag, so writable() here refuses it wherever a call would write
(every receive buffer, a window's memory, memcpy's and memset's dst, a
symmetric get's dst)."""

from __future__ import annotations

import operator
import sys
from dataclasses import dataclass
from typing import Any, Callable, Dict, NamedTuple, Optional

from ._errors import NcclInvalid
from ._lib import raw
from ._types import Backend, DeviceType, NcclDataType

__all__ = ["Buffer", "ResolvedBuffer", "Stream", "call_args", "resolve_buffer",
           "resolve_for_comm", "resolve_stream", "writable"]


def __getattr__(name: str) -> Any:
    """mem_alloc / mem_free, where nccl.core.buffer has them (they live in
    ncore.memory, which imports this module)."""
    if name in ("mem_alloc", "mem_free"):
        from . import memory

        return getattr(memory, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
            if len(_LEGACY_DLPACK) < _CACHE_LIMIT:
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


def _resolve_uncached(obj: Any) -> ResolvedBuffer:
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


# ---- the per-call cache (issue 15) ----

def _torch_key_reader(data_ptr: Callable[[Any], int], numel: Callable[[Any], int],
                      is_contiguous: Callable[[Any], bool],
                      get_device: Callable[[Any], int]) -> Callable[[Any], Optional[tuple]]:
    """A reader of what resolving a torch tensor depends on (None: the full
    path), through the given accessors: torch's own C methods, unbound, for
    torch.Tensor (a lookup on the instance per access saved, issue 15)."""
    def key(tensor: Any) -> Optional[tuple]:
        if tensor.requires_grad or not is_contiguous(tensor):
            return None  # DLPack refuses the first; the C resolver the second
        return (data_ptr(tensor), numel(tensor), tensor.dtype, get_device(tensor))
    return key


# Through the methods of the object itself (stand-ins in the tests).
_torch_key = _torch_key_reader(operator.methodcaller("data_ptr"), operator.methodcaller("numel"),
                               operator.methodcaller("is_contiguous"),
                               operator.methodcaller("get_device"))


def _torch_native_key(torch: Any) -> Callable[[Any], Optional[tuple]]:
    base = getattr(torch._C, "TensorBase", None) or torch._C._TensorBase
    return _torch_key_reader(base.data_ptr, base.numel, base.is_contiguous, base.get_device)


def _cupy_key(array: Any) -> Optional[tuple]:
    """What resolving a CuPy array depends on, or None for the full path."""
    if not array.flags.c_contiguous:
        return None
    data = array.data
    return (data.ptr, array.size, array.dtype, data.device_id)


def _cupy_key_attribute(array: Any) -> Optional[tuple]:
    """_cupy_key through CuPy's own contiguity attribute (no flags object)."""
    if not array._c_contiguous:
        return None
    data = array.data
    return (data.ptr, array.size, array.dtype, data.device_id)


# type -> key reader (None: the type is always resolved in full). Found once
# per type; tests add readers for stand-in types.
_KEY_READERS: Dict[type, Optional[Callable[[Any], Optional[tuple]]]] = {}
# (type, key) -> what the C resolver returned for an object with that key.
_RESOLVED: Dict[tuple, ResolvedBuffer] = {}
# (communicator handle, device type, device id) that passed the device check.
_CHECKED: set = set()
_CACHE_LIMIT = 4096  # entries before a cache starts again (addresses churn)
_UNSEEN = object()
_CPU = DeviceType.CPU


def _key_reader(kind: type) -> Optional[Callable[[Any], Optional[tuple]]]:
    if kind in _KEY_READERS:
        return _KEY_READERS[kind]
    reader = None
    torch = sys.modules.get("torch")
    cupy = sys.modules.get("cupy")
    if torch is not None and kind in (getattr(torch, "Tensor", None),
                                      getattr(getattr(torch, "nn", None), "Parameter", None)):
        # Exactly these types: a subclass may override the accessors
        # (__torch_function__), so it takes the full path.
        try:
            reader = _torch_native_key(torch)
        except AttributeError:
            reader = _torch_key
    elif cupy is not None and kind is getattr(cupy, "ndarray", None):
        reader = _cupy_key_attribute if hasattr(kind, "_c_contiguous") else _cupy_key
    _KEY_READERS[kind] = reader
    return reader


def _resolve_cached(obj: Any) -> ResolvedBuffer:
    kind = type(obj)
    reader = _KEY_READERS.get(kind, _UNSEEN)
    if reader is _UNSEEN:
        reader = _key_reader(kind)
    if reader is None:
        return _resolve_uncached(obj)
    try:
        key = reader(obj)
    except Exception:  # noqa: BLE001 - an object the reader cannot read (sparse, meta)
        key = None
    if key is None:
        return _resolve_uncached(obj)
    key = (kind, key)
    buf = _RESOLVED.get(key)
    if buf is None:
        buf = _resolve_uncached(obj)
        if len(_RESOLVED) >= _CACHE_LIMIT:
            _RESOLVED.clear()
        _RESOLVED[key] = buf
    return buf


def resolve_buffer(obj: Any) -> ResolvedBuffer:
    """Resolves a buffer specification to (ptr, count, dtype, device_type,
    device_id).

    Order: ResolvedBuffer / :class:`Buffer`; ``__dlpack__`` (read without
    consuming the capsule; DLPack 1.0 where the producer has it);
    ``__cuda_array_interface__``; ``__array_interface__``. A producer whose
    ``__dlpack__`` refuses (NumPy before 2 refuses read-only arrays) falls
    through to the interfaces. ``read_only`` is what the producer says
    (DLPack 1.0's flag, the interfaces' data tuple). torch tensors
    and CuPy arrays already resolved with the same address, count, dtype and
    device are answered from the cache (module docstring).

    Raises:
        NcclInvalid: not a buffer, non-contiguous, unsupported dtype
            (complex), unsupported device (messages from the C resolver).
            Bool arrays and tensors are viewed as UINT8.
    """
    return _resolve_cached(obj)


def call_args(table: Dict[tuple, tuple], comm: int, obj: Any,
              argument_name: str, writes: bool = False) -> tuple:
    """(pointer, element count, dtype value) of obj for communicator handle
    `comm`: resolve_for_comm's answer, kept in `table` (the communicator's
    own, so the device check it stands for is this communicator's) under
    the values the resolution depends on, for torch tensors and CuPy
    arrays, unless the memory is read-only (so an entry serves a call that
    writes too). Anything else is resolved every call.

    Raises:
        NcclInvalid: as resolve_for_comm.
    """
    reader = _KEY_READERS.get(type(obj), _UNSEEN)
    if reader is _UNSEEN:
        reader = _key_reader(type(obj))
    key = None
    if reader is not None:
        try:
            key = reader(obj)
        except Exception:  # noqa: BLE001 - as _resolve_cached
            key = None
        if key is not None:
            args = table.get(key)
            if args is not None:
                return args
    buf = resolve_for_comm(comm, obj, argument_name, writes)
    args = (buf.ptr, buf.count, int(buf.dtype))
    if key is not None and not buf.read_only:
        if len(table) >= _CACHE_LIMIT:
            table.clear()
        table[key] = args
    return args


def resolve_for_comm(comm: int, obj: Any, argument_name: str,
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
    buf = _resolve_cached(obj)
    if writes and buf.read_only:
        writable(buf, argument_name)
    # Plain values: hashing an Enum member runs Python code.
    checked = (comm, buf.device_id, buf.device_type is _CPU)
    if checked not in _CHECKED:
        raw.ncore_comm_check_buffer(comm, buf.as_desc(), argument_name)
        if len(_CHECKED) >= _CACHE_LIMIT:
            _CHECKED.clear()
        _CHECKED.add(checked)
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


def _generic_stream(stream: Any) -> int:
    """The full reading of a stream argument (resolve_stream's docstring)."""
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


def _torch_stream(stream: Any) -> Any:
    return stream.cuda_stream


def _attribute_stream(attribute: str) -> Callable[[Any], int]:
    """Reads one int attribute; anything else takes the full reading."""
    def read(stream: Any) -> int:
        value = getattr(stream, attribute, None)
        return value if type(value) is int else _generic_stream(stream)
    return read


def _cupy_stream(stream: Any) -> Any:
    return stream.ptr


def _framework_stream_reader(kind: type) -> Optional[Callable[[Any], int]]:
    """The reader of torch's and CuPy's stream types (what their
    ``__cuda_stream__`` gives, read directly), or None for other types. An
    object of these types names one CUDA stream for its whole life."""
    torch = sys.modules.get("torch")
    cuda = getattr(torch, "cuda", None) if torch is not None else None
    stream_type = getattr(cuda, "Stream", None) if cuda is not None else None
    if isinstance(stream_type, type) and issubclass(kind, stream_type):
        return _torch_stream
    cupy = sys.modules.get("cupy")
    cupy_cuda = getattr(cupy, "cuda", None) if cupy is not None else None
    for name in ("Stream", "ExternalStream"):
        cupy_type = getattr(cupy_cuda, name, None)
        if isinstance(cupy_type, type) and issubclass(kind, cupy_type):
            return _cupy_stream
    return None


def _stream_reader(kind: type, sample: Any) -> Callable[[Any], int]:
    """How to read streams of this type, found once per type (the lookups
    that miss cost more than the call): torch's and CuPy's streams by
    ``cuda_stream`` / ``ptr``; a type without the protocol by the attribute
    the first one had (``cuda_stream`` or ``ptr``, checked on every call);
    anything else by the full reading, protocol first."""
    framework = _framework_stream_reader(kind)
    if framework is not None:
        _STABLE_STREAM_TYPES.add(kind)
        return framework
    if kind is bool or issubclass(kind, int) or hasattr(kind, "__cuda_stream__"):
        return _generic_stream
    for attribute in ("cuda_stream", "ptr"):
        if type(getattr(sample, attribute, None)) is int:
            return _attribute_stream(attribute)
    return _generic_stream


_STREAM_READERS: Dict[type, Callable[[Any], int]] = {}
# Types whose objects name one stream for life (torch's, CuPy's), and the
# last such object read with its handle: programs pass the same stream call
# after call, and an identity test is the cheapest answer. The reference
# keeps that one stream object alive until another is read (so its
# identity cannot pass to a new object).
_STABLE_STREAM_TYPES: set = set()
_LAST_STREAM: tuple = (None, 0)


def resolve_stream(stream: Any) -> int:
    """A stream argument as an address: None (default stream) -> 0; an int;
    an object with ``__cuda_stream__`` (method or attribute giving
    (version, handle)); torch's ``cuda_stream``; cupy's ``ptr``.

    Raises:
        NcclInvalid: anything else.
    """
    global _LAST_STREAM
    last = _LAST_STREAM  # one read: another thread may replace it
    if stream is last[0]:
        return last[1]
    if stream is None:
        return 0
    kind = type(stream)
    if kind is int:
        return stream
    reader = _STREAM_READERS.get(kind)
    if reader is None:
        reader = _stream_reader(kind, stream)
        if len(_STREAM_READERS) < _CACHE_LIMIT:
            _STREAM_READERS[kind] = reader
    handle = reader(stream)
    if kind in _STABLE_STREAM_TYPES:
        _LAST_STREAM = (stream, handle)
    return handle
