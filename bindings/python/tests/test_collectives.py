"""Every collective on 2 and 4 host ranks with NumPy buffers: values, in-place
forms, and the errors (mismatched buffers, bad root)."""

from __future__ import annotations

import numpy as np
import pytest

import ncore

from conftest import run_ranks

NRANKS = [2, 4]


def _all_collectives(comm):
    r, n = comm.rank, comm.nranks
    out = {}
    send = np.arange(4, dtype=np.float32) + r
    recv = np.zeros(4, dtype=np.float32)
    comm.allreduce(send, recv, ncore.SUM)
    out["allreduce"] = recv.tolist()
    inplace = np.full(3, r + 1, dtype=np.int64)
    comm.allreduce(inplace, inplace, ncore.NcclRedOp.PROD)
    out["allreduce_prod_inplace"] = inplace.tolist()
    avg = np.full(2, float(r), dtype=np.float64)
    comm.allreduce(avg, avg, ncore.AVG)
    out["avg"] = avg.tolist()
    mx = np.array([r, -r], dtype=np.int32)
    comm.allreduce(mx, mx, ncore.MAX)
    out["max"] = mx.tolist()

    b = np.full(3, r, dtype=np.int32) if r == 1 else np.zeros(3, dtype=np.int32)
    comm.broadcast(b if r == 1 else None, b, root=1)
    out["broadcast"] = b.tolist()

    red = np.zeros(2, dtype=np.uint8) if r == 0 else None
    comm.reduce(np.array([r, 1], dtype=np.uint8), red, ncore.SUM, root=0)
    out["reduce"] = None if red is None else red.tolist()

    gathered = np.zeros(2 * n, dtype=np.int32)
    comm.allgather(np.array([r, 10 * r], dtype=np.int32), gathered)
    out["allgather"] = gathered.tolist()
    inplace_gather = np.zeros(n, dtype=np.int32)
    inplace_gather[r] = r + 5
    comm.allgather(inplace_gather[r:r + 1], inplace_gather)
    out["allgather_inplace"] = inplace_gather.tolist()

    rs = np.zeros(2, dtype=np.float32)
    comm.reduce_scatter(np.arange(2 * n, dtype=np.float32), rs, ncore.SUM)
    out["reduce_scatter"] = rs.tolist()

    a2a_send = np.array([100 * r + j for j in range(n)], dtype=np.int64)
    a2a_recv = np.zeros(n, dtype=np.int64)
    comm.alltoall(a2a_send, a2a_recv)
    out["alltoall"] = a2a_recv.tolist()

    g = np.zeros(n, dtype=np.int32) if r == n - 1 else None
    comm.gather(np.array([r * r], dtype=np.int32), g, root=n - 1)
    out["gather"] = None if g is None else g.tolist()

    s_send = np.arange(n, dtype=np.float64) * 2 if r == 0 else None
    s_recv = np.zeros(1, dtype=np.float64)
    comm.scatter(s_send, s_recv, root=0)
    out["scatter"] = s_recv.tolist()
    return out


@pytest.mark.parametrize("n", NRANKS)
def test_collective_values(n):
    results = run_ranks(n, _all_collectives)
    total = sum(range(n))
    for r, out in enumerate(results):
        assert out["allreduce"] == [4 * 0 + i * n + total for i in range(4)]
        prod = 1
        for k in range(1, n + 1):
            prod *= k
        assert out["allreduce_prod_inplace"] == [prod] * 3
        assert out["avg"] == [total / n] * 2
        assert out["max"] == [n - 1, 0]
        assert out["broadcast"] == [1, 1, 1]
        assert out["reduce"] == ([total, n] if r == 0 else None)
        assert out["allgather"] == [v for k in range(n) for v in (k, 10 * k)]
        assert out["allgather_inplace"] == [k + 5 for k in range(n)]
        assert out["reduce_scatter"] == [float(n * (2 * r)), float(n * (2 * r + 1))]
        assert out["alltoall"] == [100 * k + r for k in range(n)]
        assert out["gather"] == ([k * k for k in range(n)] if r == n - 1 else None)
        assert out["scatter"] == [2.0 * r]


def _collective_errors(comm):
    n = comm.nranks
    messages = {}
    f4 = np.zeros(4, dtype=np.float32)
    with pytest.raises(ncore.NcclInvalid, match="different dtypes"):
        comm.allreduce(f4, np.zeros(4, dtype=np.float64), ncore.SUM)
    with pytest.raises(ncore.NcclInvalid, match="recvbuf: holds 3 elements, needs at least 4"):
        comm.allreduce(f4, np.zeros(3, dtype=np.float32), ncore.SUM)
    with pytest.raises(ncore.NcclInvalid, match=f"needs at least {4 * n}"):
        comm.allgather(f4, np.zeros(4 * n - 1, dtype=np.float32))
    with pytest.raises(ncore.NcclInvalid, match=f"sendbuf: holds {n - 1} elements, needs "
                                                f"at least {n} \\(one per rank\\)"):
        comm.reduce_scatter(np.zeros(n - 1, dtype=np.float32), f4, ncore.SUM)
    with pytest.raises(ncore.NcclInvalid, match="recvbuf: .* needs at least 8"):
        comm.reduce_scatter(np.zeros(8 * n, dtype=np.float32), np.zeros(7, np.float32),
                            ncore.SUM)
    with pytest.raises(ncore.NcclInvalid, match=f"recvbuf: .* needs at least {2 * n}"):
        comm.alltoall(np.zeros(2 * n, dtype=np.float32), np.zeros(2 * n - 1, dtype=np.float32))
    if comm.rank == 0:  # checked on the root only, before it communicates
        with pytest.raises(ncore.NcclInvalid, match="recvbuf: holds 2 elements, expected 1"):
            comm.scatter(np.zeros(n, np.float32), np.zeros(2, np.float32), root=0)
    with pytest.raises(ncore.NcclInvalid, match="op"):
        comm.allreduce(f4, f4, "sum")
    with pytest.raises(ncore.NcclInvalid) as caught:
        comm.allreduce(f4, f4, 77)
    messages["bad_op"] = caught.value.message
    with pytest.raises(ncore.NcclInvalid) as caught:
        comm.broadcast(f4, f4, root=n)
    messages["bad_root"] = caught.value.message
    with pytest.raises(ncore.NcclInvalid, match="not a buffer"):
        comm.gather(f4, None, root=comm.rank)
    # The communicator still works after the rejected calls.
    ok = np.ones(1, dtype=np.int32)
    comm.allreduce(ok, ok, ncore.SUM)
    messages["after"] = int(ok[0])
    return messages


@pytest.mark.parametrize("n", NRANKS)
def test_collective_errors(n):
    for out in run_ranks(n, _collective_errors):
        assert out["bad_op"].startswith("ncore_allreduce: op")
        assert out["bad_root"].startswith("ncore_broadcast: root")
        assert out["after"] == n


def test_allreduce_fast_path_follows_its_row():
    """Communicator.allreduce writes _collective's rule out for its row of
    the table of operations (two count buffers, in place when they are
    one): a change of the row must change it too."""
    from ncore import _op_table
    assert _op_table.ALLREDUCE == _op_table.Collective(
        "ncore_allreduce", _op_table.ALL_1, _op_table.ALL_1, "same")
