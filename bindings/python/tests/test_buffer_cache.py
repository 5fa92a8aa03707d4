"""The per-call cache of buffer resolution (ncore/buffer.py, ncore/_buffer_cache.py): a
tensor-like object resolved once is answered from the cache while its
address, count, dtype and device stay the same; any change, a
non-contiguous view and every failure take the full C path again. torch and
CuPy are absent here, so a stand-in type over NumPy is given a key reader
the way torch.Tensor and cupy.ndarray get theirs."""

from __future__ import annotations

import numpy as np
import pytest

import ncore
from conftest import Tensorish
from ncore import _buffer_cache, _buffer_resolve, _stream, buffer


class CountingRaw:
    """Wraps the SWIG layer, counting the resolver and device-check calls."""

    def __init__(self, raw):
        self._raw = raw
        self.calls = {"resolve": 0, "check": 0}

    def ncore_buffer_resolve_dlpack(self, capsule):
        self.calls["resolve"] += 1
        return self._raw.ncore_buffer_resolve_dlpack(capsule)

    def ncore_comm_check_buffer(self, comm, desc, name):
        self.calls["check"] += 1
        return self._raw.ncore_comm_check_buffer(comm, desc, name)

    def __getattr__(self, name):
        return getattr(self._raw, name)


@pytest.fixture
def counting(monkeypatch):
    monkeypatch.setitem(_buffer_cache.KEY_READERS, Tensorish, _buffer_cache._torch_key)
    # Caches: emptying them changes no answer, only what the next calls ask C.
    _buffer_cache.RESOLVED.clear()
    _buffer_cache.CHECKED.clear()
    counter = CountingRaw(buffer.raw)
    monkeypatch.setattr(buffer, "raw", counter)  # the device check
    monkeypatch.setattr(_buffer_resolve, "raw", counter)  # the C resolvers
    return counter.calls


@pytest.fixture
def comm():
    uid = ncore.get_unique_id(ncore.Backend.HOST)
    c = ncore.Communicator.init(1, 0, uid, ncore.NCCLConfig(backend=ncore.Backend.HOST))
    yield c
    c.destroy()


def test_same_tensor_resolves_in_c_once(counting):
    t = Tensorish(np.arange(8, dtype=np.float32))
    first = ncore.resolve_buffer(t)
    for _ in range(3):
        assert ncore.resolve_buffer(t) == first
    assert counting["resolve"] == 1
    assert (first.ptr, first.count, first.dtype) == (t.data_ptr(), 8, ncore.FLOAT32)


def test_a_changed_address_count_or_dtype_resolves_again(counting):
    t = Tensorish(np.arange(8, dtype=np.float32))
    ncore.resolve_buffer(t)
    t.array = np.arange(8, dtype=np.float32)  # new memory, same shape
    assert ncore.resolve_buffer(t).ptr == t.data_ptr()
    t.array = t.array[:4]  # same address, fewer elements
    assert ncore.resolve_buffer(t).count == 4
    t.array = t.array.view(np.int32)  # same address and count, other dtype
    assert ncore.resolve_buffer(t).dtype == ncore.INT32
    assert counting["resolve"] == 4


def test_non_contiguous_and_grad_tensors_take_the_full_path(counting):
    t = Tensorish(np.arange(16, dtype=np.float32).reshape(4, 4))
    ncore.resolve_buffer(t)
    t.array = t.array.T  # same address and count, no longer contiguous
    with pytest.raises(ncore.NcclInvalid, match="not C-contiguous"):
        ncore.resolve_buffer(t)
    t.array = t.array.T
    t.requires_grad = True  # never from the cache (torch's DLPack refuses it)
    ncore.resolve_buffer(t)
    ncore.resolve_buffer(t)
    assert counting["resolve"] == 4


def test_unsupported_dtype_fails_every_time(counting):
    t = Tensorish(np.zeros(4, dtype=np.complex64))
    for _ in range(2):
        with pytest.raises(ncore.NcclInvalid, match="complex"):
            ncore.resolve_buffer(t)
    assert counting["resolve"] == 2


def test_device_check_once_per_communicator_and_device(counting, comm):
    a = Tensorish(np.zeros(4, dtype=np.float32))
    b = Tensorish(np.zeros(4, dtype=np.float32))
    for _ in range(3):
        comm.allreduce(a, a, ncore.SUM)
    assert counting["check"] == 1
    explicit = ncore.Buffer(a.data_ptr(), count=4, dtype=ncore.FLOAT32, device=0)
    for _ in range(2):  # host communicator, CUDA buffer: refused every time
        with pytest.raises(ncore.NcclInvalid, match="buffer is on cuda:0"):
            comm.allreduce(explicit, explicit, ncore.SUM)
    assert counting["check"] == 3


def test_call_table_answers_send_recv_allreduce_per_communicator(counting, comm):
    """send / recv / allreduce read a communicator's own table: after the
    first call no resolution and no device check, in place or not; another
    communicator fills its own (its device check is its own)."""
    a = Tensorish(np.arange(4, dtype=np.float32))
    b = Tensorish(np.zeros(4, dtype=np.float32))
    for _ in range(3):
        comm.allreduce(a, b, ncore.SUM)
        comm.allreduce(b, b, ncore.SUM)
    assert counting["check"] == 1
    assert len(comm._call_table) == 2
    np.testing.assert_array_equal(b.array, a.array)  # one rank: the sum is a
    other = ncore.Communicator.init(1, 0, ncore.get_unique_id(ncore.Backend.HOST),
                                    ncore.NCCLConfig(backend=ncore.Backend.HOST))
    try:
        other.allreduce(a, b, ncore.SUM)
        assert counting["check"] == 2 and len(other._call_table) == 2
    finally:
        other.destroy()


def test_call_table_keeps_every_check(counting, comm):
    """What the table cannot stand for still raises every time: a changed
    dtype or a short recvbuf (the Python checks), a destroyed communicator."""
    a = Tensorish(np.zeros(4, dtype=np.float32))
    comm.allreduce(a, a, ncore.SUM)
    for _ in range(2):
        with pytest.raises(ncore.NcclInvalid, match="different dtypes .FLOAT32 and INT32"):
            comm.allreduce(a, Tensorish(np.zeros(4, dtype=np.int32)), ncore.SUM)
        with pytest.raises(ncore.NcclInvalid, match="recvbuf: holds 2 elements"):
            comm.allreduce(a, Tensorish(np.zeros(2, dtype=np.float32)), ncore.SUM)
    a.array = a.array.view(np.int32)  # same address and count, other dtype
    comm.allreduce(a, a, ncore.SUM)  # resolved again, not answered as FLOAT32
    assert comm._call_table[_buffer_cache._torch_key(a)][2] == int(ncore.INT32)
    grad = Tensorish(np.zeros(4, dtype=np.float32))
    grad.requires_grad = True
    assert _buffer_cache._torch_key(grad) is None  # never from a table: the full path decides
    comm.destroy()
    with pytest.raises(ncore.NcclInvalid, match="not initialized"):
        comm.allreduce(a, a, ncore.SUM)


def test_stream_readers():
    assert ncore.resolve_stream(None) == 0
    assert ncore.resolve_stream(1234) == 1234
    with pytest.raises(ncore.NcclInvalid, match="bool"):
        ncore.resolve_stream(True)

    class Protocol:
        def __cuda_stream__(self):
            return (0, 77)

    class Pointer:
        def __init__(self, ptr):
            self.ptr = ptr

    for _ in range(2):  # the second time through the per-type reader cache
        assert ncore.resolve_stream(Protocol()) == 77
        assert ncore.resolve_stream(Pointer(88)) == 88
        with pytest.raises(ncore.NcclInvalid, match="not a stream"):
            ncore.resolve_stream(object())
    with pytest.raises(ncore.NcclInvalid, match="not a stream"):
        ncore.resolve_stream(Pointer(None))  # the per-type reader checks each time
    with pytest.raises(ncore.NcclInvalid, match="__cuda_stream__"):
        ncore.resolve_stream(type("Bad", (), {"__cuda_stream__": lambda self: 5})())


def test_stable_stream_identity(monkeypatch):
    """A stream of a type whose objects name one stream for life (torch's,
    CuPy's) is answered by identity on the next call; None, ints and other
    objects are still read."""

    class FrameworkStream:
        def __init__(self, ptr):
            self.ptr = ptr

    monkeypatch.setattr(_stream, "_LAST_STREAM", (None, 0))
    monkeypatch.setitem(_stream._STREAM_READERS, FrameworkStream, _stream._cupy_stream)
    monkeypatch.setattr(_stream, "_STABLE_STREAM_TYPES", {FrameworkStream})
    a, b = FrameworkStream(11), FrameworkStream(22)
    assert ncore.resolve_stream(a) == 11
    assert _stream._LAST_STREAM == (a, 11)
    assert ncore.resolve_stream(a) == 11
    assert ncore.resolve_stream(None) == 0
    assert ncore.resolve_stream(5) == 5
    assert ncore.resolve_stream(b) == 22 and _stream._LAST_STREAM[0] is b
    assert ncore.resolve_stream(a) == 11
    stream = ncore.Stream(ncore.Backend.HOST)  # closable: never answered by identity
    handle = ncore.resolve_stream(stream)
    assert handle != 0 and _stream._LAST_STREAM[0] is a
    stream.close()
    assert ncore.resolve_stream(stream) == 0

