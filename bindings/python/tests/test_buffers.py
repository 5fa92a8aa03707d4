"""Buffer and stream resolution, and the communicator's device check."""

from __future__ import annotations

import numpy as np
import pytest

import ncore
from ncore import _ncore as raw


class FakeCudaArray:
    """Claims to be CUDA memory on device 0 (CUDA Array Interface, and
    device_id as cuda.core's Buffer says it)."""

    device_id = 0

    def __init__(self, count=4):
        self.__cuda_array_interface__ = {"shape": (count,), "typestr": "<f4",
                                         "data": (0x10000, False), "version": 3,
                                         "strides": None}


class ArrayInterfaceOnly:
    def __init__(self, array):
        self._array = array
        self.__array_interface__ = array.__array_interface__


def test_numpy_resolves_through_dlpack():
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    resolved = ncore.resolve_buffer(a)
    assert resolved.ptr == a.ctypes.data
    assert (resolved.count, resolved.dtype, resolved.device_id) == (6, ncore.INT32, -1)
    assert resolved.device_type is ncore.DeviceType.CPU
    assert resolved.nbytes == 24


def test_readonly_numpy_falls_back_to_array_interface():
    a = np.arange(4, dtype=np.float64)
    a.setflags(write=False)
    resolved = ncore.resolve_buffer(a)
    assert (resolved.ptr, resolved.count, resolved.dtype) == (a.ctypes.data, 4, ncore.FLOAT64)


def test_array_interface_object_resolves():
    a = np.ones(5, dtype=np.uint8)
    resolved = ncore.resolve_buffer(ArrayInterfaceOnly(a))
    assert (resolved.ptr, resolved.count, resolved.dtype, resolved.device_id) == (
        a.ctypes.data, 5, ncore.UINT8, -1)


def test_non_contiguous_array_is_invalid():
    a = np.arange(10, dtype=np.float32)[::2]
    with pytest.raises(ncore.NcclInvalid) as caught:
        ncore.resolve_buffer(a)
    assert caught.value.message.startswith("ncore_buffer_resolve_dlpack: ")
    assert "contiguous" in caught.value.message
    b = np.asfortranarray(np.zeros((3, 4), dtype=np.float32))
    with pytest.raises(ncore.NcclInvalid, match="contiguous"):
        ncore.resolve_buffer(b)


def test_unsupported_dtypes_are_invalid():
    with pytest.raises(ncore.NcclInvalid) as caught:
        ncore.resolve_buffer(np.zeros(3, dtype=np.complex64))
    assert caught.value.message.startswith("ncore_buffer_resolve_dlpack: ")
    with pytest.raises(ncore.NcclInvalid) as caught:
        ncore.resolve_buffer(ArrayInterfaceOnly(np.zeros(3, dtype=np.complex128)))
    assert caught.value.message.startswith("ncore_buffer_resolve_array_interface: ")


def test_not_a_buffer_is_invalid():
    with pytest.raises(ncore.NcclInvalid, match="is not a buffer"):
        ncore.resolve_buffer([1, 2, 3])
    with pytest.raises(ncore.NcclInvalid, match="is not a buffer"):
        ncore.resolve_buffer(None)


def test_explicit_buffer():
    a = np.zeros(8, dtype=np.float32)
    assert ncore.Buffer(a.ctypes.data, size=32).resolve().count == 32
    resolved = ncore.Buffer(a.ctypes.data, count=8, dtype=ncore.FLOAT32).resolve()
    assert (resolved.count, resolved.dtype, resolved.device_id) == (8, ncore.FLOAT32, -1)
    assert ncore.Buffer(1, size=4, device=0).resolve().device_type is ncore.DeviceType.CUDA
    with pytest.raises(ncore.NcclInvalid, match="exactly one"):
        ncore.Buffer(a.ctypes.data).resolve()
    with pytest.raises(ncore.NcclInvalid, match="multiple"):
        ncore.Buffer(a.ctypes.data, size=6, dtype=ncore.FLOAT32).resolve()


def test_cuda_buffer_on_a_host_communicator_is_the_wrong_device(comm1):
    fake = FakeCudaArray()
    resolved = ncore.resolve_buffer(fake)
    assert (resolved.device_type, resolved.device_id) == (ncore.DeviceType.CUDA, 0)
    with pytest.raises(ncore.NcclInvalid) as caught:
        comm1.allreduce(fake, fake, ncore.SUM)
    assert caught.value.message.startswith("ncore_comm_check_buffer: sendbuf")
    with pytest.raises(ncore.NcclInvalid, match="recvbuf"):
        comm1.recv(ncore.Buffer(0x1000, size=4, device=0), 0)


def test_streams_resolve():
    class ProtocolStream:
        def __cuda_stream__(self):
            return (0, 1234)

    class TorchLike:
        cuda_stream = 99

    assert ncore.resolve_stream(None) == 0
    assert ncore.resolve_stream(7) == 7
    assert ncore.resolve_stream(ProtocolStream()) == 1234
    assert ncore.resolve_stream(TorchLike()) == 99
    with pytest.raises(ncore.NcclInvalid, match="stream"):
        ncore.resolve_stream("default")
    with ncore.Stream(ncore.Backend.HOST) as stream:
        assert stream.handle != 0
        assert ncore.resolve_stream(stream) == stream.handle
        stream.synchronize()
    assert stream.handle == 0
    stream.close()


def test_bad_stream_is_rejected_by_c(comm1):
    a = np.ones(2, dtype=np.float32)
    with pytest.raises(ncore.NcclInvalid) as caught:
        comm1.allreduce(a, a, ncore.SUM, stream=0xdead)
    assert caught.value.message.startswith("ncore_allreduce: stream")
    b = np.zeros(2, dtype=np.float32)
    with ncore.Stream(ncore.Backend.HOST) as stream:
        comm1.allreduce(a, b, ncore.SUM, stream=stream)
    assert b.tolist() == [1.0, 1.0]


def test_memcpy_and_memset_between_host_buffers():
    src = np.arange(8, dtype=np.float32)
    dst = np.zeros(8, dtype=np.float32)
    ncore.memcpy(dst, src, kind=ncore.MemcpyKind.HOST_TO_HOST, backend=ncore.Backend.HOST)
    assert (dst == src).all()
    ncore.memset(dst, 0, nbytes=16, backend=ncore.Backend.HOST)
    assert (dst[:4] == 0).all() and (dst[4:] == src[4:]).all()
    memory = ncore.mem_alloc(32, backend=ncore.Backend.HOST)
    try:
        ncore.memset(memory, 0x7f, backend=ncore.Backend.HOST)
        view = np.asarray(memory)
        assert (view == 0x7f).all()
    finally:
        memory.close()


def test_memcpy_refuses_more_bytes_than_a_buffer_holds():
    small = np.zeros(2, dtype=np.float32)
    big = np.zeros(8, dtype=np.float32)
    with pytest.raises(ncore.NcclInvalid, match="dst: 32 bytes do not fit in its 8 bytes"):
        ncore.memcpy(small, big, backend=ncore.Backend.HOST)
    with pytest.raises(ncore.NcclInvalid, match="nbytes: -1 is negative"):
        ncore.memset(big, 0, nbytes=-1, backend=ncore.Backend.HOST)


def test_memcpy_passes_on_the_librarys_refusal():
    a = np.zeros(4, dtype=np.float32)
    with pytest.raises(ncore.NcclInvalid) as caught:
        ncore.memcpy(a, a.copy(), kind=99, backend=ncore.Backend.HOST)
    assert caught.value.message.startswith("ncore_memcpy: kind")
