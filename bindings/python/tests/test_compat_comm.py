"""nccl.core 0.3.1 Communicator behaviours on 1, 2 and 3 host ranks (issue
18): revoke, suspend / resume, memory statistics, grow, properties, init with
several ids, initialize, split / shrink defaults, the collectives' counts
and unused buffers, close_all_resources, get_last_error."""

from __future__ import annotations

import numpy as np
import pytest

import ncore

from conftest import HOST, run_ranks


def test_properties_of_a_host_communicator(comm1):
    assert (comm1.cuda_dev, comm1.nvml_dev, comm1.n_lsa_teams) == (-1, -1, 1)
    assert comm1.device_api_support and comm1.host_rma_support
    assert not comm1.multimem_support
    comm1.destroy()
    with pytest.raises(ncore.NcclInvalid, match="not initialized"):
        comm1.cuda_dev


def test_suspend_resume_and_memory_statistics(comm1):
    stat = ncore.NcclCommMemStat
    total = comm1.get_mem_stat(stat.GPU_MEM_TOTAL)
    # The host segment is never released: all of it persists.
    assert total > 0 and comm1.get_mem_stat(stat.GPU_MEM_PERSIST) == total
    comm1.suspend()
    x = np.ones(2, dtype=np.float32)
    with pytest.raises(ncore.NcclInvalidUsage, match="suspended"):
        comm1.allreduce(x, x, ncore.SUM)
    assert comm1.get_mem_stat(stat.GPU_MEM_SUSPENDED) == 0  # queries still work
    comm1.resume()
    comm1.allreduce(x, x, ncore.SUM)
    with pytest.raises(ncore.NcclInvalidUsage, match="not suspended"):
        comm1.resume()
    with pytest.raises(ncore.NcclInvalid, match="flags"):
        comm1.suspend(4)
    with pytest.raises(ncore.NcclInvalid, match="stat"):
        comm1.get_mem_stat(9)


def test_revoke_leaves_queries_and_destroy(comm1):
    with pytest.raises(ncore.NcclInvalid, match="flags"):
        comm1.revoke(5)
    comm1.revoke()
    x = np.ones(1, dtype=np.float32)
    with pytest.raises(ncore.NcclInvalidUsage, match="revoked") as caught:
        comm1.allreduce(x, x, ncore.SUM)
    assert comm1.get_last_error() == caught.value.message
    with pytest.raises(ncore.NcclInvalidUsage):
        comm1.finalize()
    assert comm1.rank == 0 and comm1.get_async_error() is ncore.Result.Success


def test_initialize_a_null_communicator():
    comm = ncore.Communicator()
    comm.initialize(1, 0, ncore.get_unique_id(ncore.Backend.HOST), HOST)
    assert comm.nranks == 1
    with pytest.raises(ncore.NcclInvalid, match="already initialized"):
        comm.initialize(1, 0, ncore.get_unique_id(ncore.Backend.HOST), HOST)
    comm.destroy()


def test_init_with_a_list_of_ids_rejects_bad_lists():
    # The scalable init itself: test_comm_control.py.
    with pytest.raises(ncore.NcclInvalid, match="id_count"):
        ncore.Communicator.init(1, 0, [], HOST)
    uid = ncore.get_unique_id(ncore.Backend.HOST)
    with pytest.raises(ncore.NcclInvalid, match=r"unique_id\[1\]"):
        ncore.Communicator.init(1, 0, [uid, 7], HOST)


def test_grow_roles_must_fit(comm1):
    # Growing itself: test_comm_control.py.
    uid = comm1.get_unique_id()
    with pytest.raises(ncore.NcclInvalid, match="rank"):
        ncore.Communicator().grow(2, uid)  # a new rank must say its rank
    with pytest.raises(ncore.NcclInvalid, match="rank"):
        comm1.grow(2, uid, rank=1)  # an existing rank keeps its own


def _split_shrink_defaults(comm):
    alone = comm.split()  # color None: out of every new communicator
    pairs = comm.split(comm.rank % 2)  # key 0: ordered by the old rank
    whole = comm.shrink()  # nobody excluded
    aborted = comm.shrink(flag=ncore.CommShrinkFlag.Abort)
    out = (alone.is_valid, pairs.rank, pairs.nranks, whole.nranks, aborted.nranks)
    for c in (pairs, whole, aborted):
        c.destroy()
    return out


def test_split_and_shrink_defaults():
    assert run_ranks(4, _split_shrink_defaults) == [
        (False, 0, 2, 4, 4), (False, 0, 2, 4, 4), (False, 1, 2, 4, 4), (False, 1, 2, 4, 4)]


def _counts_and_unused_buffers(comm):
    n, r = comm.nranks, comm.rank
    out = {}
    send = np.arange(2, dtype=np.float32) + r
    big = np.full(2 * n + 3, -1, dtype=np.float32)
    comm.gather(send, big)  # root None: an allgather
    out["allgather"] = big.tolist()
    bigger = np.full(3, -1, dtype=np.float32)
    comm.allreduce(send, bigger, ncore.SUM)
    out["allreduce"] = bigger.tolist()
    # sendbuf of 2n + 1 elements: blocks of 2, the last element is not sent.
    rs_send = np.arange(2 * n + 1, dtype=np.float32)
    rs_recv = np.full(3, -1, dtype=np.float32)
    comm.reduce_scatter(rs_send, rs_recv, ncore.SUM)
    out["reduce_scatter"] = rs_recv.tolist()
    a2a = np.full(n + 1, -1, dtype=np.float32)
    comm.alltoall(np.arange(n + 1, dtype=np.float32) + 10 * r, a2a)
    out["alltoall"] = a2a.tolist()
    # Off the root, the unused buffer is not even looked at.
    junk = "not a buffer"
    red = np.zeros(2, dtype=np.float32)
    comm.reduce(send, red if r == 0 else junk, ncore.SUM, root=0)
    out["reduce"] = red.tolist() if r == 0 else None
    got = np.zeros(2 * n, dtype=np.float32)
    comm.gather(send, got if r == 1 else junk, root=1)
    out["gather"] = got.tolist() if r == 1 else None
    b = np.zeros(2, dtype=np.float32)
    comm.broadcast(np.array([7, 8], dtype=np.float32) if r == 0 else junk, b, root=0)
    out["broadcast"] = b.tolist()
    s = np.zeros(1, dtype=np.float32)
    comm.scatter(np.arange(n, dtype=np.float32) if r == 0 else junk, s, root=0)
    out["scatter"] = s.tolist()
    return out


@pytest.mark.parametrize("n", [2, 3])
def test_counts_follow_nccl_core_and_unused_buffers_are_ignored(n):
    results = run_ranks(n, _counts_and_unused_buffers)
    total = sum(range(n))
    for r, out in enumerate(results):
        gathered = [v for k in range(n) for v in (k, k + 1)]
        assert out["allgather"] == gathered + [-1.0] * 3
        assert out["allreduce"] == [total, total + n, -1.0]
        assert out["reduce_scatter"] == [n * 2.0 * r, n * (2.0 * r + 1), -1.0]
        assert out["alltoall"] == [10.0 * k + r for k in range(n)] + [-1.0]
        assert out["reduce"] == ([total, total + n] if r == 0 else None)
        assert out["gather"] == (gathered if r == 1 else None)
        assert out["broadcast"] == [7.0, 8.0]
        assert out["scatter"] == [float(r)]


def test_close_all_resources_keeps_the_communicator(comm1):
    buffer = np.zeros(8, dtype=np.float32)
    window = comm1.register_window(buffer, flags=ncore.WindowFlag.StrictOrdering)
    assert window.flags is ncore.WindowFlag.STRICT_ORDERING
    resources = [comm1.register_buffer(buffer), window,
                 comm1.create_pre_mul_sum(0.5), comm1.create_dev_comm()]
    assert all(resource.is_valid for resource in resources)
    comm1.close_all_resources()
    assert not any(resource.is_valid for resource in resources)
    comm1.close_all_resources()  # idempotent
    assert comm1.is_valid and comm1.nranks == 1
