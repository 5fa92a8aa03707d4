"""The per-call cache of buffer resolution (ncore/buffer.py, issue 15): a
tensor-like object resolved once is answered from the cache while its
address, count, dtype and device stay the same; any change, a
non-contiguous view and every failure take the full C path again. torch and
CuPy are absent here, so a stand-in type over NumPy is given a key reader
the way torch.Tensor and cupy.ndarray get theirs."""

from __future__ import annotations

import numpy as np
import pytest

import ncore
from ncore import buffer


class Tensorish:
    """A NumPy array with torch's accessors (data_ptr, numel, dtype,
    get_device, is_contiguous, requires_grad) and DLPack."""

    def __init__(self, array):
        self.array = array
        self.requires_grad = False

    def __dlpack__(self, **kwargs):
        return self.array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()

    def data_ptr(self):
        return self.array.ctypes.data

    def numel(self):
        return self.array.size

    @property
    def dtype(self):
        return self.array.dtype

    def get_device(self):
        return -1

    def is_contiguous(self):
        return self.array.flags.c_contiguous


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
    monkeypatch.setitem(buffer._KEY_READERS, Tensorish, buffer._torch_key)
    monkeypatch.setattr(buffer, "_RESOLVED", {})
    monkeypatch.setattr(buffer, "_CHECKED", set())
    counter = CountingRaw(buffer.raw)
    monkeypatch.setattr(buffer, "raw", counter)
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
