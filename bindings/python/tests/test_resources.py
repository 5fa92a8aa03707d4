"""Communicator resources: lifecycle (close idempotent, is_valid,
RuntimeError once closed or once the communicator is gone), registered
buffers, windows, custom operators, device communicators."""

from __future__ import annotations

import numpy as np
import pytest

import ncore
from ncore.interop import numpy as nnp

from conftest import run_ranks


def test_registered_buffer_lifecycle(comm1):
    a = np.zeros(16, dtype=np.float32)
    handle = comm1.register_buffer(a)
    assert isinstance(handle, ncore.CommResource)
    assert handle.is_valid
    assert handle.size == 64 and handle.ptr == a.ctypes.data
    assert handle.handle != 0
    handle.close()
    assert not handle.is_valid
    handle.close()  # idempotent
    with pytest.raises(RuntimeError) as caught:
        handle.handle
    assert isinstance(caught.value, ncore.NcclClosed)
    assert caught.value.message.startswith("ncore_registered_buffer_native_handle")
    with pytest.raises(RuntimeError):
        handle.size


def test_resources_close_with_their_communicator():
    comm = ncore.Communicator.init(1, 0, ncore.get_unique_id(ncore.Backend.HOST),
                                   ncore.NCCLConfig(backend=ncore.Backend.HOST))
    buf = comm.register_buffer(np.zeros(4, dtype=np.int32))
    op = comm.create_pre_mul_sum(2.0)
    dev = comm.create_dev_comm()
    window = comm.register_window(nnp.empty(8, dtype=np.float32))
    resources = [buf, op, dev, window]
    assert all(r.is_valid for r in resources)
    comm.destroy()
    assert not any(r.is_valid for r in resources)
    for use in (lambda: buf.handle, lambda: op.op, lambda: dev.ptr, lambda: window.user_ptr,
                lambda: window.get_peer_device_pointer(0)):
        with pytest.raises(RuntimeError):
            use()
    for r in resources:
        r.close()  # still fine after the communicator went


def test_resource_context_manager_closes(comm1):
    with comm1.register_buffer(np.zeros(2)) as handle:
        assert handle.is_valid
    assert not handle.is_valid


def test_custom_redop_properties_and_closed_use(comm1):
    op = comm1.create_pre_mul_sum(0.5, ncore.FLOAT32)
    assert op.dtype is ncore.FLOAT32
    value = op.op
    assert value > int(ncore.AVG)
    a = np.array([4.0, 8.0], dtype=np.float32)
    b = np.zeros(2, dtype=np.float32)
    comm1.allreduce(a, b, op)
    assert b.tolist() == [2.0, 4.0]
    comm1.allreduce(a, b, value)  # the raw value works too
    op.close()
    with pytest.raises(RuntimeError):
        op.op
    with pytest.raises(ncore.NcclClosed):
        comm1.allreduce(a, b, value)


def test_pre_mul_sum_scalar_forms(comm1):
    with pytest.raises(ncore.NcclInvalid, match="exactly 1 element"):
        comm1.create_pre_mul_sum(np.array([1.0, 2.0]))
    with pytest.raises(ncore.NcclInvalid, match="datatype"):
        comm1.create_pre_mul_sum(np.array([1.0], dtype=np.float64), ncore.FLOAT32)
    op = comm1.create_pre_mul_sum(np.array([3], dtype=np.int32))
    assert op.dtype is ncore.INT32
    a = np.array([1, 2], dtype=np.int32)
    b = np.zeros(2, dtype=np.int32)
    comm1.allreduce(a, b, op)
    assert b.tolist() == [3, 6]
    wrong = np.zeros(2, dtype=np.float32)
    with pytest.raises(ncore.NcclInvalid) as caught:
        comm1.allreduce(wrong, wrong, op)
    assert caught.value.message.startswith("ncore_allreduce: op")


def test_dev_comm_on_host(comm1):
    dev = comm1.create_dev_comm()
    assert dev.ptr != 0 and dev.dev_comm.ptr == dev.ptr
    info = dev.info
    assert (info.rank, info.nranks, info.lsa_size) == (0, 1, 1)
    assert info.gin_type is ncore.NcclGinType.NONE
    dev.close()
    with pytest.raises(RuntimeError):
        dev.ptr
    req = ncore.NCCLDevCommRequirements(gin_connection_type=ncore.NcclGinConnectionType.FULL)
    with pytest.raises(ncore.NcclNotSupported) as caught:
        comm1.create_dev_comm(req)
    assert caught.value.message.startswith("ncore_create_dev_comm")
    # NCCL's requirement lists reach the library, which refuses them here.
    req = ncore.NCCLDevCommRequirements(team_requirements_list=4096)
    with pytest.raises(ncore.NcclInvalid) as caught:
        comm1.create_dev_comm(req)
    assert "must be NULL on the host backend" in caught.value.message


def _window_pointers(comm):
    rank, nranks = comm.rank, comm.nranks
    shared = nnp.empty(4, dtype=np.int64)
    shared[:] = rank * 100
    plain = np.zeros(4, dtype=np.int64)
    win = comm.register_window(shared)
    plain_win = comm.register_window(plain, ncore.WindowFlag.COLL_SYMMETRIC)
    out = {
        "size": win.size, "user_ptr_ok": win.user_ptr == shared.ctypes.data,
        "handle": win.handle != 0, "flags": int(plain_win.flags),
        "multimem": win.get_lsa_multimem_device_pointer(),
        "plain_peer": plain_win.get_peer_device_pointer((rank + 1) % nranks),
    }
    # The peer's memory is really reachable through its pointer.
    peer = (rank + 1) % nranks
    ptr = win.get_peer_device_pointer(peer, 8)
    comm.allreduce(np.zeros(1), np.zeros(1), ncore.SUM)  # everyone has written
    out["peer_value"] = int(np.ctypeslib.as_array(
        (np.ctypeslib.ctypes.c_int64 * 1).from_address(ptr))[0])
    out["lsa_ptr_ok"] = win.get_lsa_device_pointer(comm.rank) != 0
    with pytest.raises(ncore.NcclInvalid):
        win.get_peer_device_pointer(nranks)
    win.close()
    win.close()
    with pytest.raises(RuntimeError):
        win.get_lsa_device_pointer(0)
    plain_win.close()
    comm.allreduce(np.zeros(1), np.zeros(1), ncore.SUM)
    return out


@pytest.mark.parametrize("nranks", [2, 4])
def test_window_pointers(nranks):
    results = run_ranks(nranks, _window_pointers)
    for rank, out in enumerate(results):
        assert out["size"] == 32 and out["user_ptr_ok"] and out["handle"]
        assert out["flags"] == int(ncore.WindowFlag.COLL_SYMMETRIC)
        assert out["multimem"] is None
        assert out["plain_peer"] is None
        assert out["peer_value"] == ((rank + 1) % nranks) * 100
        assert out["lsa_ptr_ok"]
