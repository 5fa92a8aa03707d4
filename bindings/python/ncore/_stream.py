"""Streams: ncore's own (:class:`Stream`), and a stream argument of any
kind (None, an int, ``__cuda_stream__``, torch's and CuPy's streams) read
as the address the C ABI takes, found once per type, since the lookups
that miss cost more than the call itself."""

from __future__ import annotations

import sys
from typing import Any, Callable, Dict, Optional

from ._errors import NcclInvalid
from ._lib import raw
from ._types import Backend
from .typing import NcclStreamSpec

__all__ = ["Stream", "resolve_stream"]

# Stream types remembered before the table starts again (types churn only
# in programs that make classes on the fly).
_READER_LIMIT = 4096


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


def resolve_stream(stream: Optional[NcclStreamSpec]) -> int:
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
        if len(_STREAM_READERS) < _READER_LIMIT:
            _STREAM_READERS[kind] = reader
    handle = reader(stream)
    if kind in _STABLE_STREAM_TYPES:
        _LAST_STREAM = (stream, handle)
    return handle
