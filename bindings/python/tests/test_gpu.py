"""The binding on the NCCL backend with torch and CuPy, one rank on one GPU
(the GPU machines have one GPU per process; NCCL does not put two ranks on
one device). Skipped, with the reason, where the framework, a GPU or NCCL is
missing -- always on CI."""

from __future__ import annotations

import pytest

import ncore

from conftest import framework_missing

TORCH_MISSING = framework_missing("torch")
CUPY_MISSING = framework_missing("cupy")
needs_torch = pytest.mark.skipif(TORCH_MISSING is not None, reason=str(TORCH_MISSING))
needs_cupy = pytest.mark.skipif(CUPY_MISSING is not None, reason=str(CUPY_MISSING))


@pytest.fixture(scope="module")
def gpu_comm():
    """A one-rank NCCL communicator on the current device."""
    config = ncore.NCCLConfig(backend=ncore.Backend.NCCL, timeout=60)
    comm = ncore.Communicator.init(1, 0, ncore.get_unique_id(ncore.Backend.NCCL), config)
    yield comm
    comm.destroy()


@needs_torch
def test_torch_properties_and_collectives(gpu_comm):
    import torch

    comm = gpu_comm
    assert (comm.rank, comm.nranks, comm.backend) == (0, 1, ncore.Backend.NCCL)
    assert comm.device.device_id == torch.cuda.current_device()
    assert isinstance(comm.gin_type, ncore.NcclGinType)
    assert isinstance(comm.railed_gin_type, ncore.NcclGinType)
    x = torch.arange(4, dtype=torch.float32, device="cuda")
    y = torch.zeros_like(x)
    comm.allreduce(x, y, ncore.SUM)
    comm.broadcast(x, y, root=0)
    g = torch.zeros(4, dtype=torch.float32, device="cuda")
    comm.allgather(x, g)
    comm.reduce_scatter(x, g, ncore.MAX)
    with ncore.group():
        r = torch.zeros_like(x)
        comm.send(x, 0)
        comm.recv(r, 0)
    torch.cuda.synchronize()
    assert y.tolist() == [0, 1, 2, 3] and g.tolist() == [0, 1, 2, 3]
    assert r.tolist() == [0, 1, 2, 3]
    with pytest.raises(ncore.NcclInvalid):
        comm.allreduce(torch.zeros(4), torch.zeros(4), ncore.SUM)  # CPU tensors


@needs_torch
def test_torch_pre_mul_sum_and_streams(gpu_comm):
    import torch

    x = torch.full((8,), 3.0, device="cuda")
    with gpu_comm.create_pre_mul_sum(2.0, ncore.FLOAT32) as op:
        stream = torch.cuda.Stream()
        with torch.cuda.stream(stream):
            gpu_comm.allreduce(x, x, op, stream=stream)
        stream.synchronize()
        assert x.tolist() == [6.0] * 8
        with ncore.Stream(ncore.Backend.NCCL) as own:
            gpu_comm.allreduce(x, x, op, stream=own)
            own.synchronize()
        assert x.tolist() == [12.0] * 8
    with pytest.raises(RuntimeError):
        op.op


@needs_torch
def test_torch_registration_window_and_put_signal(gpu_comm):
    import torch
    from ncore.interop import torch as nt

    buf = nt.empty(1024, dtype=torch.int32)
    with gpu_comm.register_buffer(buf) as reg:
        assert reg.size == 4096 and reg.is_valid
    assert not reg.is_valid
    win = gpu_comm.register_window(buf)
    assert win.size == 4096 and win.user_ptr == buf.data_ptr()
    assert win.get_peer_device_pointer(0) is not None
    assert win.get_lsa_multimem_device_pointer() is None  # NVLS off on these machines
    src = torch.arange(16, dtype=torch.int32, device="cuda")
    gpu_comm.put_signal(src, 0, win, peer_window_offset=4)
    gpu_comm.wait_signal(ncore.WaitSignalDesc(peer=0))
    torch.cuda.synchronize()
    assert buf[4:20].tolist() == list(range(16))
    win.close()
    with pytest.raises(RuntimeError):
        win.user_ptr


@needs_torch
def test_torch_dev_comm(gpu_comm):
    dev = gpu_comm.create_dev_comm()
    assert dev.ptr != 0 and dev.info.nranks == 1
    dev.close()
    with pytest.raises(RuntimeError):
        dev.ptr


@needs_torch
def test_torch_symmetric_tensors(gpu_comm):
    import torch
    from ncore.interop import torch as nt

    ncore.init(gpu_comm)
    try:
        t = nt.tensor((2, 4), dtype=torch.float32)
        assert t.shape == (2, 4) and t.is_cuda and float(t.sum()) == 0.0
        ncore.put(t, torch.ones(2, 4, device="cuda"), pe=0)
        torch.cuda.synchronize()
        assert float(t.sum()) == 8.0
        peer = nt.get_peer_tensor(t, 0)
        assert peer is not None and float(peer.sum()) == 8.0
        raw_bytes = nt.bytetensor((4,), dtype=torch.float64)
        assert raw_bytes.dtype == torch.uint8 and raw_bytes.numel() == 32
        buffer, nbytes, name = nt.tensor_get_buffer(t)
        assert (nbytes, name) == (32, "float32")
        nt.free_tensor(t)
        nt.free_tensor(raw_bytes)
        with pytest.raises(ncore.NcclInvalid):
            nt.free_tensor(t)
    finally:
        ncore.finalize()


@needs_cupy
def test_cupy_collectives_and_symmetric_arrays(gpu_comm):
    import cupy
    from ncore.interop import cupy as nc

    a = nc.empty((4,), dtype=cupy.float32)
    a[:] = cupy.arange(4, dtype=cupy.float32)
    b = cupy.zeros(4, dtype=cupy.float32)
    gpu_comm.allreduce(a, b, ncore.SUM)
    cupy.cuda.Device().synchronize()
    assert b.tolist() == [0, 1, 2, 3]
    ncore.init(gpu_comm)
    try:
        s = nc.array((4,), dtype="int64")
        ncore.put(s, cupy.full(4, 5, dtype=cupy.int64), pe=0)
        cupy.cuda.Device().synchronize()
        assert s.tolist() == [5] * 4
        assert nc.get_peer_array(s, 0).tolist() == [5] * 4
        raw_bytes = nc.bytearray((2,), dtype="float32", device_id=gpu_comm.device.device_id)
        assert raw_bytes.dtype == cupy.uint8 and raw_bytes.size == 8
        with pytest.raises(ncore.NcclInvalid, match="device_id"):
            nc.bytearray((2,), device_id=gpu_comm.device.device_id + 1)
        nc.free_array(s)
        nc.free_array(raw_bytes)
    finally:
        ncore.finalize()
