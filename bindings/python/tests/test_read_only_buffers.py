"""Read-only memory is never a destination: every call
that writes into a buffer -- the receive buffer of each collective and of
recv, an in-place allreduce, a window's memory, memcpy's and memset's dst,
a symmetric get's dst -- refuses memory its producer marked read-only (a
NumPy array with writeable=False or over a bytes object, an array
interface whose data says so, a DLPack 1.0 tensor flagged read-only),
naming the argument, and leaves the memory as it was. Reading from such
memory stays allowed."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

import ncore
from conftest import Tensorish
from ncore import _buffer_cache

READ_ONLY = "is read-only memory, and the call writes into it"


def read_only(values) -> np.ndarray:
    array = np.array(values, dtype=np.float32)
    array.flags.writeable = False
    return array


@pytest.mark.parametrize("name, call", [
    ("allreduce", lambda c, s, r: c.allreduce(s, r, ncore.SUM)),
    ("reduce", lambda c, s, r: c.reduce(s, r, ncore.SUM, root=0)),
    ("broadcast", lambda c, s, r: c.broadcast(s, r, root=0)),
    ("allgather", lambda c, s, r: c.allgather(s, r)),
    ("reduce_scatter", lambda c, s, r: c.reduce_scatter(s, r, ncore.SUM)),
    ("alltoall", lambda c, s, r: c.alltoall(s, r)),
    ("gather", lambda c, s, r: c.gather(s, r, root=0)),
    ("scatter", lambda c, s, r: c.scatter(s, r, root=0)),
])
def test_every_collective_refuses_a_read_only_recvbuf_and_leaves_it(comm1, name, call):
    send = np.arange(1, 5, dtype=np.float32)
    recv = read_only([7, 7, 7, 7])
    with pytest.raises(ncore.NcclInvalid, match=f"recvbuf: {READ_ONLY}"):
        call(comm1, send, recv)
    assert recv.tolist() == [7, 7, 7, 7], name


def test_allreduce_into_an_array_over_bytes_leaves_the_bytes(comm1):
    data = bytes(16)
    over_bytes = np.frombuffer(data, dtype=np.float32)
    with pytest.raises(ncore.NcclInvalid, match=f"recvbuf: {READ_ONLY}"):
        comm1.allreduce(np.ones(4, dtype=np.float32), over_bytes, ncore.SUM)
    with pytest.raises(ncore.NcclInvalid, match=f"sendbuf: {READ_ONLY}"):
        comm1.allreduce(over_bytes, over_bytes, ncore.SUM)  # in place writes it too
    assert data == bytes(16)


def test_read_only_memory_is_still_a_source(comm1):
    send = read_only([1, 2, 3, 4])
    recv = np.zeros(4, dtype=np.float32)
    comm1.allreduce(send, recv, ncore.SUM)
    comm1.broadcast(send, recv, root=0)
    assert recv.tolist() == [1, 2, 3, 4]
    dst = np.zeros(4, dtype=np.float32)
    ncore.memcpy(dst, send, backend=ncore.Backend.HOST)
    assert dst.tolist() == [1, 2, 3, 4]


def test_recv_refuses_a_read_only_recvbuf(comm1):
    recv = read_only([5, 5])
    with pytest.raises(ncore.NcclInvalid, match=f"recvbuf: {READ_ONLY}"):
        comm1.recv(recv, 0)
    assert recv.tolist() == [5, 5]


def test_a_window_over_read_only_memory_is_refused(comm1):
    # Peers write into a window's memory.
    memory = ncore.interop.numpy.empty(64, dtype=np.uint8)
    memory.flags.writeable = False
    with pytest.raises(ncore.NcclInvalid, match=f"buffer: {READ_ONLY}"):
        comm1.register_window(memory)


def test_memcpy_and_memset_refuse_a_read_only_dst():
    dst = read_only([3, 3])
    with pytest.raises(ncore.NcclInvalid, match=f"dst: {READ_ONLY}"):
        ncore.memcpy(dst, np.zeros(2, dtype=np.float32), backend=ncore.Backend.HOST)
    with pytest.raises(ncore.NcclInvalid, match=f"dst: {READ_ONLY}"):
        ncore.memset(dst, 0, backend=ncore.Backend.HOST)
    assert dst.tolist() == [3, 3]


def test_symmetric_get_refuses_a_read_only_dst(comm1):
    ncore.symmetric.init(comm1)
    try:
        source = ncore.interop.numpy.array(4, "float32")
        dst = read_only([9, 9, 9, 9])
        with pytest.raises(ncore.NcclInvalid, match=f"dst: {READ_ONLY}"):
            ncore.symmetric.get(dst, source, pe=0)
        assert dst.tolist() == [9, 9, 9, 9]
        ncore.interop.numpy.free_array(source)
    finally:
        ncore.symmetric.finalize()


class ArrayInterface:
    """Memory described by __array_interface__ alone, with its data tuple's
    read-only flag as given."""

    def __init__(self, array: np.ndarray, read_only_flag: bool):
        self.array = array
        interface = dict(array.__array_interface__)
        interface["data"] = (array.ctypes.data, read_only_flag)
        self.__array_interface__ = interface


def test_the_array_interface_read_only_flag_is_honoured(comm1):
    target = np.zeros(2, dtype=np.float32)
    with pytest.raises(ncore.NcclInvalid, match=f"recvbuf: {READ_ONLY}"):
        comm1.allreduce(np.ones(2, dtype=np.float32), ArrayInterface(target, True), ncore.SUM)
    assert target.tolist() == [0, 0]
    comm1.allreduce(np.ones(2, dtype=np.float32), ArrayInterface(target, False), ncore.SUM)
    assert target.tolist() == [1, 1]


class CudaArrayInterface:
    """Device memory described by __cuda_array_interface__ (version 3), its
    data tuple saying read-only; never dereferenced here."""

    device_id = 0

    def __init__(self, read_only_flag: bool):
        self.__cuda_array_interface__ = {"data": (0x10000, read_only_flag), "shape": (4,),
                                         "typestr": "<f4", "strides": None, "version": 3}


def test_the_cuda_array_interface_read_only_flag_is_honoured():
    assert ncore.resolve_buffer(CudaArrayInterface(True)).read_only
    assert not ncore.resolve_buffer(CudaArrayInterface(False)).read_only
    with pytest.raises(ncore.NcclInvalid, match=f"dst: {READ_ONLY}"):
        ncore.memset(CudaArrayInterface(True), 0, backend=ncore.Backend.HOST)


# DLPack 1.0's versioned capsule (dlpack.h 1.0: DLManagedTensorVersioned),
# built here because neither NumPy 1.24 nor this torch exports one.
class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class _DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32),
                ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p),
                ("flags", ctypes.c_uint64), ("dl_tensor", _DLTensor)]


_CAPSULE_NAME = b"dltensor_versioned"  # must outlive every capsule named by it
_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]


class VersionedProducer:
    """A float32 array exported the way NumPy 2 exports one: a DLPack 1.0
    capsule when max_version allows it (flagged read-only as given), and,
    when read-only, a BufferError for the legacy protocol."""

    def __init__(self, array: np.ndarray, read_only_flag: bool):
        self.array = array
        self.read_only_flag = read_only_flag
        self.shape = (ctypes.c_int64 * 1)(array.size)
        self.managed = _DLManagedTensorVersioned(
            major=1, minor=0, flags=1 if read_only_flag else 0,
            dl_tensor=_DLTensor(data=array.ctypes.data, device=_DLDevice(1, 0), ndim=1,
                                dtype=_DLDataType(2, 32, 1), shape=self.shape))

    def __dlpack_device__(self):
        return (1, 0)

    def __dlpack__(self, stream=None, max_version=None):
        if max_version is None or tuple(max_version) < (1, 0):
            if self.read_only_flag:
                raise BufferError("read-only: needs DLPack 1.0")
            return self.array.__dlpack__()
        return _capsule_new(ctypes.addressof(self.managed), _CAPSULE_NAME, None)


def test_a_dlpack_tensor_flagged_read_only_is_refused_as_a_destination(comm1):
    target = np.zeros(3, dtype=np.float32)
    flagged = VersionedProducer(target, True)
    resolved = ncore.resolve_buffer(flagged)
    assert resolved.read_only and resolved.ptr == target.ctypes.data and resolved.count == 3
    with pytest.raises(ncore.NcclInvalid, match=f"recvbuf: {READ_ONLY}"):
        comm1.allreduce(np.ones(3, dtype=np.float32), flagged, ncore.SUM)
    assert target.tolist() == [0, 0, 0]
    out = np.zeros(3, dtype=np.float32)
    comm1.allreduce(VersionedProducer(np.full(3, 2, dtype=np.float32), True), out, ncore.SUM)
    assert out.tolist() == [2, 2, 2]  # a read-only tensor is still a source
    comm1.allreduce(np.ones(3, dtype=np.float32), VersionedProducer(target, False), ncore.SUM)
    assert target.tolist() == [1, 1, 1]


def test_the_call_cache_never_serves_read_only_memory_as_a_destination(comm1, monkeypatch):
    """A stand-in tensor type read through the per-call cache (torch's
    path): used first as a source, it must still be refused as a
    destination."""

    class ReadOnlyTensorish(VersionedProducer, Tensorish):
        requires_grad = False

    monkeypatch.setitem(_buffer_cache.KEY_READERS, ReadOnlyTensorish, _buffer_cache._torch_key)
    target = np.full(2, 4, dtype=np.float32)
    tensor = ReadOnlyTensorish(target, True)
    out = np.zeros(2, dtype=np.float32)
    comm1.allreduce(tensor, out, ncore.SUM)
    with pytest.raises(ncore.NcclInvalid, match=f"recvbuf: {READ_ONLY}"):
        comm1.allreduce(out, tensor, ncore.SUM)
    with pytest.raises(ncore.NcclInvalid, match=f"recvbuf: {READ_ONLY}"):
        comm1.recv(tensor, 0)
    assert target.tolist() == [4, 4]
