"""One rank of test_framework_ranks.py: runs every case with torch or CuPy
buffers on the NCCL backend, or NumPy on the host backend, in a process
started by ``python -m ncore.run``:

    python -m ncore.run -n 2 --backend nccl framework_rank_cases.py FRAMEWORK OUTDIR

On NCCL each rank uses device rank % device_count; with NCORE_OVERSUBSCRIBE=1
(one GPU shared by all ranks) NCCL sees every rank as its own node, so each
rank's LSA team is itself, and calls that need a load/store-reachable peer
must answer exactly NcclNotSupported naming the LSA team, or a None pointer.
The cases assert both outcomes from lsa_rank / lsa_size, never assuming one.
NumPy on the host backend (every rank an LSA peer) runs the same cases on
machines without a GPU, so that they are exercised on CI too.

Cases run in order on one world communicator (NCCL init over sockets takes
seconds); the non-blocking case makes its own. Each case's outcome is
appended to OUTDIR/rank<R>.jsonl as soon as it is known. After the first
failure the later cases are recorded as not run, the world communicator is
aborted and the rank exits 1, so that the launcher stops its peers (a peer
may be waiting in a collective this rank will never join).
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback
from typing import Any, Callable, Optional

import ncore
from ncore import Backend, WaitSignalDesc, raw

#: How long a non-blocking call may stay in progress (s).
SETTLE_SECONDS = 60.0


class CaseSkipped(Exception):
    """A case that does not apply to this framework; the message says why
    (recorded as skipped, and the test skips with it)."""


# ---- the frameworks: the same cases with torch tensors, CuPy or NumPy arrays ----

class Torch:
    """torch tensors on this rank's device."""

    name = "torch"
    backend = Backend.NCCL

    def __init__(self, device: int) -> None:
        import torch
        from ncore.interop import torch as interop

        self.m, self.interop = torch, interop
        torch.cuda.set_device(device)

    def dtype(self, name: str) -> Any:
        return getattr(self.m, name)

    def array(self, values: list, dtype: str = "float32") -> Any:
        return self.m.tensor(values, dtype=self.dtype(dtype), device="cuda")

    def full(self, n: int, value: float, dtype: str = "float32") -> Any:
        return self.m.full((n,), value, dtype=self.dtype(dtype), device="cuda")

    def unusable(self, n: int) -> Any:
        """A buffer this backend's communicators refuse: host memory."""
        return self.m.zeros(n, dtype=self.m.float32)

    def comm_memory(self, n: int, dtype: str) -> Any:
        """Zeroed memory from ncore_mem_alloc (what windows need)."""
        x = self.interop.empty(n, dtype=self.dtype(dtype))
        x.zero_()
        return x

    def stream(self) -> Any:
        return self.m.cuda.Stream()

    def sync(self) -> None:
        self.m.cuda.synchronize()

    def sym(self, shape: tuple, dtype: str) -> Any:
        return self.interop.tensor(shape, dtype=self.dtype(dtype))

    def capture(self, calls: Callable[[Any], None]) -> Callable[[], None]:
        """torch.cuda.graph (global capture mode) of what calls(stream)
        enqueues on the capturing stream; returns the replay."""
        graph = self.m.cuda.CUDAGraph()
        side = self.m.cuda.Stream()
        side.wait_stream(self.m.cuda.current_stream())
        with self.m.cuda.graph(graph, stream=side):
            calls(self.m.cuda.current_stream())
        return graph.replay

    def sym_peer(self, x: Any, pe: int) -> Any:
        return self.interop.get_peer_tensor(x, pe)

    def sym_free(self, x: Any) -> None:
        self.interop.free_tensor(x)

    def from_bytes(self, data: bytes) -> Any:
        return self.m.frombuffer(bytearray(data), dtype=self.m.uint8).to("cuda")

    def to_bytes(self, x: Any) -> bytes:
        return x.cpu().numpy().tobytes()


class _Arrays:
    """What CuPy and NumPy share: the same array API over self.m, and
    ncore.interop's module of the same name as self.interop."""

    m: Any
    interop: Any

    def dtype(self, name: str) -> Any:
        return self.m.dtype(name)

    def array(self, values: list, dtype: str = "float32") -> Any:
        return self.m.asarray(values, dtype=self.dtype(dtype))

    def full(self, n: int, value: float, dtype: str = "float32") -> Any:
        return self.m.full(n, value, dtype=self.dtype(dtype))

    def comm_memory(self, n: int, dtype: str) -> Any:
        x = self.interop.empty((n,), dtype=self.dtype(dtype))
        x.fill(0)
        return x

    def sym(self, shape: tuple, dtype: str) -> Any:
        return self.interop.array(shape, dtype=dtype)

    def sym_peer(self, x: Any, pe: int) -> Any:
        return self.interop.get_peer_array(x, pe)

    def sym_free(self, x: Any) -> None:
        self.interop.free_array(x)


class CuPy(_Arrays):
    """CuPy arrays on this rank's device."""

    name = "cupy"
    backend = Backend.NCCL

    def __init__(self, device: int) -> None:
        import cupy
        import numpy
        from ncore.interop import cupy as interop

        self.m, self.np, self.interop = cupy, numpy, interop
        cupy.cuda.Device(device).use()

    def unusable(self, n: int) -> Any:
        return self.np.zeros(n, dtype=self.np.float32)

    def stream(self) -> Any:
        return self.m.cuda.Stream(non_blocking=True)

    def sync(self) -> None:
        self.m.cuda.Device().synchronize()

    def capture(self, calls: Callable[[Any], None]) -> Callable[[], None]:
        """A CuPy stream's capture of what calls(stream) enqueues on it;
        returns the launch of the graph there."""
        stream = self.m.cuda.Stream(non_blocking=True)
        with stream:
            stream.begin_capture()
            try:
                calls(stream)
            finally:
                graph = stream.end_capture()
        return lambda: graph.launch(stream)

    def from_bytes(self, data: bytes) -> Any:
        return self.m.asarray(self.np.frombuffer(data, dtype=self.np.uint8))

    def to_bytes(self, x: Any) -> bytes:
        return self.m.asnumpy(x).tobytes()


class NumPy(_Arrays):
    """NumPy arrays on the host backend (no device; every call completes
    before it returns)."""

    name = "numpy"
    backend = Backend.HOST

    def __init__(self, device: int) -> None:
        import numpy
        from ncore.interop import numpy as interop

        self.m, self.interop = numpy, interop

    def unusable(self, n: int) -> Any:
        return None  # the host backend takes any host memory

    def stream(self) -> Any:
        return ncore.Stream(Backend.HOST)

    def sync(self) -> None:
        pass


    def from_bytes(self, data: bytes) -> Any:
        return self.m.frombuffer(data, dtype=self.m.uint8).copy()

    def to_bytes(self, x: Any) -> bytes:
        return x.tobytes()


FRAMEWORKS = {"torch": Torch, "cupy": CuPy, "numpy": NumPy}


def config(fw: Any, device: int, **fields: Any) -> Any:
    """The tests' communicator configuration on fw's backend and device."""
    return ncore.NCCLConfig(backend=fw.backend, timeout=60,
                            device=device if device >= 0 else None, **fields)


# ---- helpers ----

def equal(what: str, got: Any, expected: list) -> None:
    values = got.tolist()
    assert values == expected, f"{what}: got {values}, expected {expected}"


def raises(error: type, what: str, call: Callable, *args: Any, **kwargs: Any) -> str:
    """Asserts call raises `error`; returns its message."""
    try:
        call(*args, **kwargs)
    except error as caught:
        return str(caught)
    raise AssertionError(f"{what}: no {error.__name__} raised")


def lsa_reachable(comm: Any, peer: int) -> bool:
    """Whether peer is in this rank's LSA team (NCCL's team is the block of
    lsa_size consecutive ranks around this one)."""
    first = comm.rank - comm.lsa_rank
    return first <= peer < first + comm.lsa_size


def settle(comm: Any, what: str) -> None:
    """Polls comm's asynchronous state until it is not in progress, and
    asserts it is then NCORE_OK."""
    deadline = time.monotonic() + SETTLE_SECONDS
    state = comm.get_async_error()
    while state == raw.NCORE_IN_PROGRESS:
        assert time.monotonic() < deadline, f"{what}: in progress after {SETTLE_SECONDS} s"
        time.sleep(0.001)
        state = comm.get_async_error()
    assert state == raw.NCORE_OK, f"{what}: asynchronous error {ncore.get_error_string(state)}"


class Calls:
    """Runs calls on one communicator. On a non-blocking one a call may
    return with its work still in progress (NCORE_IN_PROGRESS is a success,
    as in nccl.core): then the communicator is polled until it is done, as
    NCCL asks. Either way the asynchronous state must be NCORE_OK
    afterwards."""

    def __init__(self, comm: Any, nonblocking: bool) -> None:
        self.comm, self.nonblocking = comm, nonblocking

    def __call__(self, call: Callable, *args: Any, **kwargs: Any) -> None:
        call(*args, **kwargs)
        settle(self.comm, getattr(call, "__name__", "call"))

    def lsa(self, peer: int, call: Callable, *args: Any, **kwargs: Any) -> bool:
        """A call that reaches `peer` through its memory: done (True) when
        peer is in the LSA team, else exactly NcclNotSupported naming the LSA
        team (False)."""
        if lsa_reachable(self.comm, peer):
            self(call, *args, **kwargs)
            return True
        message = raises(ncore.NcclNotSupported,
                         f"{call.__name__} to rank {peer}, outside the LSA team of "
                         f"{self.comm.lsa_size}", call, *args, **kwargs)
        assert "LSA team" in message, f"{call.__name__}: message {message!r} names no LSA team"
        return False


def barrier(calls: Calls, fw: Any) -> None:
    """An allreduce everyone must reach, waited for with the communicator's
    synchronize (which fails, rather than hangs, when a peer is gone)."""
    one = fw.full(1, 1, "int32")
    fw.sync()
    calls(calls.comm.allreduce, one, one, ncore.SUM)
    calls.comm.synchronize()
    equal("barrier", one, [calls.comm.nranks])


# ---- bodies shared by the blocking and non-blocking communicators ----

def collectives(calls: Calls, fw: Any) -> None:
    """The 8 collectives, each result checked; then local argument errors."""
    comm = calls.comm
    n, r = comm.nranks, comm.rank
    x = fw.array([float(i + r) for i in range(4)])
    y = fw.full(4, -1.0)
    calls(comm.allreduce, x, y, ncore.SUM)
    fw.sync()
    equal("allreduce", y, [float(n * i + n * (n - 1) // 2) for i in range(4)])

    root = n - 1
    b = fw.full(3, -1.0)
    calls(comm.broadcast, fw.array([100.0, 101.0, 102.0]) if r == root else None, b, root)
    fw.sync()
    equal("broadcast", b, [100.0, 101.0, 102.0])

    out = fw.full(2, -1.0) if r == 0 else None
    calls(comm.reduce, fw.full(2, float(r)), out, ncore.MAX, 0)
    fw.sync()
    if r == 0:
        equal("reduce MAX", out, [float(n - 1)] * 2)

    g = fw.full(2 * n, -1.0)
    calls(comm.allgather, fw.array([10.0 * r, 10.0 * r + 1]), g)
    fw.sync()
    equal("allgather", g, [10.0 * k + i for k in range(n) for i in range(2)])

    rs = fw.full(2, -1.0)
    calls(comm.reduce_scatter,
          fw.array([float(r + 100 * j + i) for j in range(n) for i in range(2)]), rs, ncore.SUM)
    fw.sync()
    equal("reduce_scatter", rs, [float(n * (n - 1) // 2 + n * (100 * r + i)) for i in range(2)])

    a = fw.full(n, -1, "int32")
    calls(comm.alltoall, fw.array([1000 * r + j for j in range(n)], "int32"), a)
    fw.sync()
    equal("alltoall", a, [1000 * i + r for i in range(n)])

    gathered = fw.full(2 * n, -1, "int32") if r == 0 else None
    calls(comm.gather, fw.array([r, -r], "int32"), gathered, 0)
    fw.sync()
    if r == 0:
        equal("gather", gathered, [v for k in range(n) for v in (k, -k)])

    s = fw.full(1, -1, "int32")
    calls(comm.scatter, fw.array([5 * j for j in range(n)], "int32") if r == 0 else None, s, 0)
    fw.sync()
    equal("scatter", s, [5 * r])

    # On a stream of the framework's own.
    z = fw.full(4, float(r + 1))
    fw.sync()
    stream = fw.stream()
    calls(comm.allreduce, z, z, ncore.SUM, stream=stream)
    stream.synchronize()
    equal("allreduce on a stream", z, [float(n * (n + 1) // 2)] * 4)

    # Argument errors are found before NCCL sees the call, on every rank.
    raises(ncore.NcclInvalid, "allreduce of 4 into 3", comm.allreduce,
           fw.full(4, 0.0), fw.full(3, 0.0), ncore.SUM)
    if fw.unusable(4) is not None:
        raises(ncore.NcclInvalid, "allreduce of memory the backend refuses", comm.allreduce,
               fw.unusable(4), fw.unusable(4), ncore.SUM)
    raises(ncore.NcclInvalid, f"broadcast from root {n}", comm.broadcast, b, b, n)


def send_recv_ring(calls: Calls, fw: Any) -> None:
    """Each rank sends to its right and receives from its left in one group."""
    comm = calls.comm
    n, r = comm.nranks, comm.rank
    right, left = (r + 1) % n, (r + n - 1) % n
    src = fw.array([10 * r + i for i in range(5)], "int32")
    dst = fw.full(5, -1, "int32")

    def ring() -> None:
        with ncore.group():
            comm.send(src, right)
            comm.recv(dst, left)

    calls(ring)
    fw.sync()
    equal("ring recv", dst, [10 * left + i for i in range(5)])
    message = raises(ncore.NcclInvalid, f"send to rank {n}", comm.send, src, n)
    assert "peer" in message, message


def window_put_signal(calls: Calls, fw: Any) -> None:
    """A window over ncore memory; put_signal / signal / wait_signal to the
    ring neighbours (data verified when they are LSA peers, exactly
    NcclNotSupported otherwise) and to itself (always reachable)."""
    comm = calls.comm
    n, r = comm.nranks, comm.rank
    right, left = (r + 1) % n, (r + n - 1) % n
    count = 64
    memory = fw.comm_memory(n * count, "int32")
    fw.sync()  # zeroed before any peer can write
    window = comm.register_window(memory)
    own = ncore.resolve_buffer(memory).ptr
    assert window.size == n * count * 4 and window.peer_size(right) == n * count * 4
    assert window.user_ptr == own
    # Its own part is always reachable (NCCL may map it at another address).
    assert window.get_peer_device_pointer(r) is not None
    reachable = window.get_peer_device_pointer(right) is not None
    assert reachable == lsa_reachable(comm, right), (
        f"peer pointer of rank {right}: {'set' if reachable else 'None'}, LSA team "
        f"{comm.lsa_rank}/{comm.lsa_size}")

    src = fw.array([1000 * r + i for i in range(count)], "int32")
    fw.sync()
    # Rank r writes slot r of its right neighbour's part, and of its own.
    calls.lsa(right, comm.put_signal, src, right, window, peer_window_offset=r * count)
    arrived = calls.lsa(left, comm.wait_signal, WaitSignalDesc(peer=left))
    calls(comm.put_signal, src, r, window, peer_window_offset=r * count)
    calls(comm.wait_signal, WaitSignalDesc(peer=r))
    calls.lsa(right, comm.signal, right)
    calls.lsa(left, comm.wait_signal, WaitSignalDesc(peer=left))
    fw.sync()
    words = memory.tolist()
    if arrived:
        assert words[left * count:(left + 1) * count] == [1000 * left + i for i in range(count)], \
            f"put from rank {left} did not land"
    assert words[r * count:(r + 1) * count] == [1000 * r + i for i in range(count)], \
        "put into its own window did not land"
    barrier(calls, fw)  # no peer still writes before the window goes
    window.close()
    raises(RuntimeError, "user_ptr of a closed window", lambda: window.user_ptr)


# ---- the cases ----

def case_properties(comm: Any, fw: Any, device: int) -> None:
    n = int(os.environ["NCORE_NRANKS"])
    assert (comm.rank, comm.nranks) == (int(os.environ["NCORE_RANK"]), n)
    assert comm.backend == fw.backend and comm.device.device_id == device
    assert 1 <= comm.lsa_size <= n and 0 <= comm.lsa_rank < comm.lsa_size
    if fw.backend == Backend.NCCL and os.environ.get("NCORE_OVERSUBSCRIBE", "") not in ("", "0"):
        # Every rank its own NCCL host: nothing is load/store reachable.
        assert (comm.lsa_rank, comm.lsa_size) == (0, 1), (comm.lsa_rank, comm.lsa_size)
    assert isinstance(comm.gin_type, ncore.NcclGinType)
    assert comm.get_async_error() == raw.NCORE_OK


def case_collectives(comm: Any, fw: Any, device: int) -> None:
    collectives(Calls(comm, False), fw)


def case_send_recv_ring(comm: Any, fw: Any, device: int) -> None:
    send_recv_ring(Calls(comm, False), fw)


def case_register_buffer(comm: Any, fw: Any, device: int) -> None:
    n, r = comm.nranks, comm.rank
    buf = fw.comm_memory(256, "float32")
    buf[:] = fw.full(256, float(r + 1))
    with comm.register_buffer(buf) as reg:
        assert reg.is_valid and reg.size == 1024
        assert reg.ptr == ncore.resolve_buffer(buf).ptr
        comm.allreduce(buf, buf, ncore.SUM)
        fw.sync()
        equal("allreduce in a registered buffer", buf[:4], [float(n * (n + 1) // 2)] * 4)
    assert not reg.is_valid
    reg.close()  # idempotent
    if fw.unusable(4) is not None:
        raises(ncore.NcclInvalid, "register memory the backend refuses", comm.register_buffer,
               fw.unusable(4))


def case_window_put_signal(comm: Any, fw: Any, device: int) -> None:
    window_put_signal(Calls(comm, False), fw)


def case_symmetric(comm: Any, fw: Any, device: int) -> None:
    """Symmetric memory: peer views of LSA peers only; put / get to every PE
    (NcclNotSupported outside the LSA team); rows written by reachable PEs
    land."""
    n, r = comm.nranks, comm.rank
    calls = Calls(comm, False)
    ncore.init(comm)
    try:
        t = fw.sym((n, 4), "float32")
        assert float(t.sum()) == 0.0, "symmetric memory is not zeroed"
        for pe in range(n):
            view = fw.sym_peer(t, pe)
            assert (view is not None) == lsa_reachable(comm, pe), (
                f"peer view of PE {pe}: {'set' if view is not None else 'None'}, LSA team "
                f"{comm.lsa_rank}/{comm.lsa_size}")
            if view is not None:
                assert tuple(view.shape) == (n, 4)
        row = fw.full(4, float(r + 1))
        barrier(calls, fw)  # every PE has looked at its zeros before any put
        for pe in range(n):
            calls.lsa(pe, ncore.put, t[r], row, pe=pe)
        barrier(calls, fw)
        rows = t.tolist()
        for k in range(n):
            expected = [float(k + 1)] * 4 if lsa_reachable(comm, k) else [0.0] * 4
            assert rows[k] == expected, f"row {k}: {rows[k]}, expected {expected}"
        got = fw.full(4, -1.0)
        for pe in range(n):
            if calls.lsa(pe, ncore.get, got, t[pe], pe=pe):
                fw.sync()
                equal(f"get of PE {pe}'s row", got, [float(pe + 1)] * 4)
        barrier(calls, fw)  # no PE still reads before the memory goes
        fw.sym_free(t)
        raises(ncore.NcclInvalid, "free twice", fw.sym_free, t)
    finally:
        ncore.finalize()


def case_pre_mul_sum(comm: Any, fw: Any, device: int) -> None:
    n, r = comm.nranks, comm.rank
    x = fw.full(4, float(r + 1))
    with comm.create_pre_mul_sum(2.0, ncore.FLOAT32) as op:
        comm.allreduce(x, x, op)
        fw.sync()
        equal("PreMulSum 2.0 (host scalar)", x, [float(n * (n + 1))] * 4)
    raises(RuntimeError, "op of a closed operator", lambda: op.op)
    scalar = fw.full(1, 0.5)
    y = fw.full(4, float(r + 1))
    with comm.create_pre_mul_sum(scalar) as op:  # device-resident scalar
        comm.allreduce(y, y, op)
        fw.sync()
        equal("PreMulSum 0.5 (device scalar)", y, [n * (n + 1) / 4] * 4)
    message = raises(ncore.NcclInvalid, "two-element scalar", comm.create_pre_mul_sum,
                     fw.full(2, 1.0))
    assert "scalar" in message, message


def case_dev_comm(comm: Any, fw: Any, device: int) -> None:
    """Created, or -- only where the ranks span several LSA teams --
    exactly NcclNotSupported naming GIN."""
    n, r = comm.nranks, comm.rank
    try:
        dev = comm.create_dev_comm()
    except ncore.NcclNotSupported as refused:
        assert comm.lsa_size < n, f"refused within one LSA team of {n}: {refused}"
        assert "GIN" in str(refused), f"refusal names no GIN: {refused}"
        print(f"rank {r}: device communicator refused: {refused}", flush=True)
        return
    info = dev.info
    assert (info.rank, info.nranks) == (r, n), info
    assert (info.lsa_rank, info.lsa_size) == (comm.lsa_rank, comm.lsa_size), info
    assert dev.ptr != 0
    dev.close()
    dev.close()
    assert not dev.is_valid
    raises(RuntimeError, "ptr of a closed device communicator", lambda: dev.ptr)


def nonblocking_comm(comm: Any, fw: Any, device: int) -> Any:
    """A new communicator of comm's ranks made with NCCLConfig(blocking=False)
    (rank 0's id reaches the others through comm); it may still initialise."""
    r = comm.rank
    uid = ncore.get_unique_id(fw.backend).as_bytes if r == 0 else bytes(128)
    shared = fw.from_bytes(uid)
    comm.broadcast(shared, shared, 0)
    fw.sync()
    return ncore.Communicator.init(comm.nranks, r, fw.to_bytes(shared),
                                   config(fw, device, blocking=False))


def case_nonblocking(comm: Any, fw: Any, device: int) -> None:
    """A communicator made with NCCLConfig(blocking=False): init may return
    it still initialising; once get_async_error says NCORE_OK, collectives,
    p2p and windows work as on a blocking one."""
    n, r = comm.nranks, comm.rank
    nb = nonblocking_comm(comm, fw, device)
    try:
        first = nb.get_async_error()
        assert first in (raw.NCORE_OK, raw.NCORE_IN_PROGRESS), ncore.get_error_string(first)
        print(f"rank {r}: non-blocking init returned "
              f"{'in progress' if first == raw.NCORE_IN_PROGRESS else 'ready'}", flush=True)
        settle(nb, "non-blocking init")
        assert (nb.rank, nb.nranks, nb.device.device_id) == (r, n, device)
        calls = Calls(nb, True)
        collectives(calls, fw)
        send_recv_ring(calls, fw)
        try:
            window_put_signal(calls, fw)
        except ncore.NcclNotSupported as e:
            # NCCL 2.29+ gives a non-blocking communicator spanning several
            # LSA teams without GIN no window at all (core/nccl/README.md).
            assert "GIN" in str(e) and nb.lsa_size < n, str(e)
            print(f"rank {r}: no window on this communicator: {e}", flush=True)
        barrier(calls, fw)
    finally:
        nb.destroy()


def case_nonblocking_without_polls(comm: Any, fw: Any, device: int) -> None:
    """On a non-blocking communicator the calls of a program that
    never polls between them (reduce_scatter with a PreMulSum operator,
    gather, scatter, broadcast, split, shrink, finalize) all work: a call
    NCCL accepted as in progress raises nothing, and the next call waits for
    it. destroy() then leaves the object invalid (NcclInvalid)."""
    n, r = comm.nranks, comm.rank
    nb = nonblocking_comm(comm, fw, device)
    settle(nb, "non-blocking init")
    send = fw.full(4 * n, float(r + 1))
    recv = fw.full(4, 0.0)
    op = nb.create_pre_mul_sum(1.0 / n, ncore.FLOAT32)
    nb.reduce_scatter(send, recv, op)
    gathered = fw.full(4 * n, 0.0)
    nb.gather(recv, gathered, 0)
    nb.scatter(gathered, recv, 0)
    nb.broadcast(recv, recv, 0)
    fw.sync()
    equal("reduce_scatter(PreMulSum 1/n), gather, scatter, broadcast", recv,
          [(n + 1) / 2] * 4)
    child = nb.split(0, r)
    child.destroy()
    shrunk = nb.shrink([])
    shrunk.destroy()
    op.close()
    nb.finalize()
    nb.destroy()
    raises(ncore.NcclInvalid, "a destroyed communicator", lambda: nb.rank)


def case_cuda_graph(comm: Any, fw: Any, device: int) -> None:
    """An allreduce, a send/recv ring in a group, and K put_signals
    to the right LSA neighbour with one wait for K from the left, run once
    eagerly, then captured into a CUDA graph (torch.cuda.graph, CuPy's
    stream capture) on the capturing stream, passed explicitly (None is the
    legacy default stream, which is not captured), and replayed with new
    inputs, the data checked after each replay; a synchronize of the
    capturing stream is refused (NcclInvalidUsage naming the CUDA graph)
    and the capture goes on. NumPy on the host backend runs the eager round
    and skips the rest."""
    n, r = comm.nranks, comm.rank
    right, left = (r + 1) % n, (r + n - 1) % n
    k_puts, replays, words = 3, 4, 16
    x, y = fw.full(256, 0.0), fw.full(256, -1.0)
    src, dst = fw.full(8, 0, "int32"), fw.full(8, -1, "int32")
    memory = fw.comm_memory(k_puts * words, "int32")
    put_src = fw.full(k_puts * words, 0, "int32")
    fw.sync()
    window = comm.register_window(memory)
    one_sided = lsa_reachable(comm, right) and lsa_reachable(comm, left)
    refusals: list = []

    def calls(stream: Any, capturing: bool) -> None:
        comm.allreduce(x, y, ncore.SUM, stream=stream)
        with ncore.group():
            comm.send(src, right, stream=stream)
            comm.recv(dst, left, stream=stream)
        if capturing:
            refusals.append(raises(ncore.NcclInvalidUsage, "synchronize during capture",
                                   comm.synchronize, stream))
        if one_sided:
            for k in range(k_puts):
                comm.put_signal(put_src[k * words:(k + 1) * words], right, window,
                                peer_window_offset=k * words, stream=stream)
            comm.wait_signal(WaitSignalDesc(peer=left, op_count=k_puts), stream=stream)

    def inputs(step: int) -> None:
        """Inputs of this step, outputs cleared, every rank past this point."""
        x[:] = fw.array([float(r * 100 + step + i) for i in range(256)])
        y[:] = fw.full(256, -1.0)
        src[:] = fw.array([1000 * r + 10 * step + i for i in range(8)], "int32")
        dst[:] = fw.full(8, -1, "int32")
        put_src[:] = fw.array([1000 * r + 10 * step + i for i in range(k_puts * words)],
                              "int32")
        memory[:] = fw.full(k_puts * words, 0, "int32")
        barrier(Calls(comm, False), fw)

    def outputs(step: int, what: str) -> None:
        fw.sync()
        equal(f"{what}: allreduce", y,
              [float(100 * n * (n - 1) // 2 + n * (step + i)) for i in range(256)])
        equal(f"{what}: ring", dst, [1000 * left + 10 * step + i for i in range(8)])
        if one_sided:
            equal(f"{what}: puts from rank {left}", memory,
                  [1000 * left + 10 * step + i for i in range(k_puts * words)])

    inputs(0)
    calls(None, False)
    outputs(0, "eager")
    if fw.backend == Backend.HOST:
        barrier(Calls(comm, False), fw)
        window.close()
        raise CaseSkipped("the eager round passed; CUDA graphs need the NCCL "
                          "backend (host operations complete before they return)")
    replay = fw.capture(lambda stream: calls(stream, True))
    assert refusals and "CUDA graph" in refusals[0], refusals
    for step in range(1, replays + 1):
        inputs(step)
        replay()
        outputs(step, f"replay {step}")
    barrier(Calls(comm, False), fw)  # no peer still writes into the window
    window.close()


CASES: list = [
    ("properties", case_properties),
    ("collectives", case_collectives),
    ("send_recv_ring", case_send_recv_ring),
    ("register_buffer", case_register_buffer),
    ("window_put_signal", case_window_put_signal),
    ("symmetric", case_symmetric),
    ("pre_mul_sum", case_pre_mul_sum),
    ("nonblocking", case_nonblocking),
    ("nonblocking_without_polls", case_nonblocking_without_polls),
    ("cuda_graph", case_cuda_graph),
    # Last: where NCCL refuses it, a refusal must leave the communicator
    # usable, which the barrier after each case checks.
    ("dev_comm", case_dev_comm),
]
CASE_NAMES = [name for name, _ in CASES]


def main(argv: list) -> int:
    framework, outdir = argv[1], argv[2]
    rank = int(os.environ["NCORE_RANK"])
    path = os.path.join(outdir, f"rank{rank}.jsonl")
    failed: Optional[str] = None
    comm = None

    def record(case: str, state: str, detail: str = "", seconds: float = 0.0) -> None:
        with open(path, "a", encoding="utf-8") as out:
            out.write(json.dumps({"case": case, "state": state, "detail": detail}) + "\n")
        print(f"rank {rank} {framework} {case}: {state} ({seconds:.1f} s)"
              + (f"\n{detail}" if state == "failed" else ""), flush=True)

    try:
        kind = FRAMEWORKS[framework]
        device = (rank % raw.ncore_device_count(int(Backend.NCCL))
                  if kind.backend == Backend.NCCL else -1)
        fw = kind(device)
        comm = ncore.Communicator.from_env(config(fw, device))
    except BaseException:  # noqa: BLE001 - every case depends on it
        failed = "the world communicator"
        record("*", "failed", traceback.format_exc())
    for name, case in CASES:
        if failed is not None:
            record(name, "not-run", f"{failed} failed first")
            continue
        start = time.monotonic()
        try:
            case(comm, fw, device)
            barrier(Calls(comm, False), fw)  # the next case starts together
        except CaseSkipped as skipped:
            record(name, "skipped", str(skipped), time.monotonic() - start)
            continue
        except BaseException:  # noqa: BLE001 - recorded, then the rank stops
            failed = f"case {name}"
            record(name, "failed", traceback.format_exc(), time.monotonic() - start)
            continue
        record(name, "passed", seconds=time.monotonic() - start)
    if comm is not None:
        if failed is not None:
            comm.abort()
        else:
            comm.destroy()
    return 1 if failed is not None else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
