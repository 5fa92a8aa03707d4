"""send / recv, signal / wait_signal, put_signal on 2 and 4 host ranks."""

from __future__ import annotations

import numpy as np
import pytest

import ncore
from ncore.interop import numpy as nnp

from conftest import run_ranks


def _ring(comm):
    r, n = comm.rank, comm.nranks
    send = np.full(5, r, dtype=np.int32)
    recv = np.full(5, -1, dtype=np.int32)
    with ncore.group():
        comm.send(send, (r + 1) % n)
        comm.recv(recv, (r - 1) % n)
    # Self send/recv inside a group.
    own = np.zeros(2, dtype=np.float64)
    ncore.group_start()
    comm.send(np.array([1.5, 2.5]), r)
    comm.recv(own, r)
    ncore.group_end()
    return recv.tolist(), own.tolist()


@pytest.mark.parametrize("n", [2, 4])
def test_send_recv_ring(n):
    for r, (ring, own) in enumerate(run_ranks(n, _ring)):
        assert ring == [(r - 1) % n] * 5
        assert own == [1.5, 2.5]


def _p2p_errors(comm):
    n = comm.nranks
    with pytest.raises(ncore.NcclInvalid) as caught:
        comm.send(np.zeros(2), n + 3)
    bad_peer = caught.value.message
    with pytest.raises(ncore.NcclInvalid) as caught:
        comm.signal(-1)
    bad_signal = caught.value.message
    with pytest.raises(ncore.NcclInvalid) as caught:
        comm.signal((comm.rank + 1) % n, signal_index=1)
    bad_index = caught.value.message
    with pytest.raises(ncore.NcclInvalid) as caught:
        comm.wait_signal([])
    empty_wait = caught.value.message
    with pytest.raises(ncore.NcclInvalid) as caught:
        comm.wait_signal(ncore.WaitSignalDesc(peer=0, op_count=0))
    zero_count = caught.value.message
    with pytest.raises(ncore.NcclInvalid, match="WaitSignalDesc"):
        comm.wait_signal([(0, 1)])
    with pytest.raises(ncore.NcclInvalid, match="RegisteredWindowHandle"):
        comm.put_signal(np.zeros(1), 0, object())
    return bad_peer, bad_signal, bad_index, empty_wait, zero_count


@pytest.mark.parametrize("n", [2, 4])
def test_p2p_errors_name_the_argument(n):
    for bad_peer, bad_signal, bad_index, empty_wait, zero_count in run_ranks(n, _p2p_errors):
        assert bad_peer.startswith("ncore_send: peer: ")
        assert f"[0, {n})" in bad_peer
        assert bad_signal.startswith("ncore_signal: peer")
        assert bad_index.startswith("ncore_signal: signal_index")
        assert empty_wait.startswith("ncore_wait_signal: ")
        assert zero_count.startswith("ncore_wait_signal: ")
        assert "op_count" in zero_count


def _signals(comm):
    r, n = comm.rank, comm.nranks
    right, left = (r + 1) % n, (r - 1) % n
    comm.signal(right)
    comm.signal(right)
    comm.wait_signal(ncore.WaitSignalDesc(peer=left, op_count=2))
    # Everyone signals rank 0; rank 0 waits for all of them at once.
    comm.signal(0)
    if r == 0:
        comm.wait_signal([ncore.WaitSignalDesc(peer=p) for p in range(n)])
    return True


@pytest.mark.parametrize("n", [2, 4])
def test_signal_and_wait(n):
    assert run_ranks(n, _signals) == [True] * n


def _put_signal(comm, use_ncore_memory):
    r, n = comm.rank, comm.nranks
    target = nnp.empty(2 * n, dtype=np.float32) if use_ncore_memory else np.empty(2 * n, dtype=np.float32)
    target[:] = -1
    window = comm.register_window(target)
    right, left = (r + 1) % n, (r - 1) % n
    comm.put_signal(np.array([r, r + 0.5], dtype=np.float32), right, window,
                    peer_window_offset=2 * r)
    comm.wait_signal(ncore.WaitSignalDesc(peer=left))
    got = target[2 * left:2 * left + 2].tolist()
    with pytest.raises(ncore.NcclInvalid) as caught:
        comm.put_signal(np.zeros(3, dtype=np.float32), right, window,
                        peer_window_offset=2 * n - 1)
    too_big = caught.value.message
    comm.allreduce(np.zeros(1), np.zeros(1), ncore.SUM)
    window.close()
    with pytest.raises(RuntimeError):
        comm.put_signal(np.zeros(1, dtype=np.float32), right, window)
    return got, too_big


@pytest.mark.parametrize("n", [2, 4])
@pytest.mark.parametrize("use_ncore_memory", [True, False])
def test_put_signal_reaches_peer_window(n, use_ncore_memory):
    for r, (got, too_big) in enumerate(run_ranks(n, _put_signal, use_ncore_memory)):
        left = (r - 1) % n
        assert got == [left, left + 0.5]
        assert too_big.startswith("ncore_put_signal: ")
