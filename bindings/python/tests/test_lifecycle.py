"""split, shrink, finalize, abort, init_all, from_env."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ncore

from conftest import run_ranks


def _split(comm):
    r = comm.rank
    halves = comm.split(r % 2, key=-r)
    value = np.array([r], dtype=np.int32)
    halves.allreduce(value, value, ncore.SUM)
    out = (halves.rank, halves.nranks, int(value[0]))
    halves.destroy()
    lonely = comm.split(None if r != 0 else 0, key=0)
    out += (lonely.is_valid, lonely.nranks if lonely.is_valid else None)
    lonely.destroy()
    return out


def test_split_by_color_and_nocolor():
    results = run_ranks(4, _split)
    # Colors 0 = ranks {0, 2}, 1 = {1, 3}; key -r orders them high rank first.
    assert results[0] == (1, 2, 2, True, 1)
    assert results[2] == (0, 2, 2, False, None)
    assert results[1] == (1, 2, 4, False, None)
    assert results[3] == (0, 2, 4, False, None)


def _shrink(comm):
    n = comm.nranks
    if comm.rank == n - 1:
        return None  # the excluded rank does not take part
    smaller = comm.shrink([n - 1])
    value = np.ones(1, dtype=np.int64)
    smaller.allreduce(value, value, ncore.SUM)
    with pytest.raises(ncore.NcclInvalid) as caught:
        comm.shrink([comm.rank])
    out = (smaller.rank, smaller.nranks, int(value[0]), caught.value.message)
    smaller.destroy()
    return out


@pytest.mark.parametrize("n", [2, 4])
def test_shrink_excludes_a_rank(n):
    results = run_ranks(n, _shrink)
    assert results[-1] is None
    for r, (rank, size, total, message) in enumerate(results[:-1]):
        assert (rank, size, total) == (r, n - 1, n - 1)
        assert message.startswith("ncore_comm_shrink: ")


def _finalize(comm):
    comm.finalize()
    with pytest.raises(ncore.NcclInvalidUsage) as caught:
        comm.finalize()
    assert comm.rank >= 0  # queries still work
    comm.destroy()
    comm.destroy()
    with pytest.raises(ncore.NcclInvalid, match="not initialized"):
        comm.rank
    return caught.value.message


def test_finalize_then_destroy():
    for message in run_ranks(2, _finalize):
        assert message.startswith("ncore_comm_finalize")


def _abort(comm):
    r = comm.rank
    if r == 0:
        comm.abort()
        comm.abort()
        assert not comm.is_valid
        return "aborted"
    with pytest.raises(ncore.NcclError) as caught:
        comm.recv(np.zeros(1), 0)
    return type(caught.value).__name__


def test_abort_reaches_the_peer():
    results = run_ranks(2, _abort)
    assert results[0] == "aborted"
    assert results[1] in ("NcclRemoteError", "NcclClosed")


def test_init_all_drives_ranks_from_one_thread():
    comms = ncore.Communicator.init_all(3, ncore.NCCLConfig(backend=ncore.Backend.HOST))
    assert [c.rank for c in comms] == [0, 1, 2] and all(c.nranks == 3 for c in comms)
    buffers = [np.full(2, c.rank + 1, dtype=np.int32) for c in comms]
    with ncore.group():
        for comm, buf in zip(comms, buffers):
            comm.allreduce(buf, buf, ncore.SUM)
    assert all(b.tolist() == [6, 6] for b in buffers)
    for comm in comms:
        comm.destroy()
    assert ncore.Communicator.init_all([]) == []
    with pytest.raises(ncore.NcclInvalid) as caught:
        ncore.Communicator.init_all([0, 1], ncore.NCCLConfig(backend=ncore.Backend.HOST))
    assert caught.value.message.startswith("ncore_comm_init_all: devlist")


LAUNCHER_VARIABLES = ("NCORE_RANK", "NCORE_NRANKS", "NCORE_UNIQUE_ID", "OMPI_COMM_WORLD_RANK",
                      "PMI_RANK", "SLURM_PROCID", "RANK", "WORLD_SIZE", "MASTER_ADDR",
                      "MASTER_PORT")


def test_from_env_without_a_launcher_is_one_rank(monkeypatch):
    for name in LAUNCHER_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    with ncore.Communicator.from_env(ncore.NCCLConfig(backend=ncore.Backend.HOST)) as comm:
        assert (comm.rank, comm.nranks) == (0, 1)


def test_from_env_says_what_the_launcher_lacks(monkeypatch):
    for name in LAUNCHER_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("RANK", "1")
    monkeypatch.setenv("WORLD_SIZE", "2")
    with pytest.raises(ncore.NcclError, match="MASTER_ADDR"):
        ncore.Communicator.from_env()


def test_launcher_runs_ranks_with_from_env(tmp_path):
    script = tmp_path / "rank.py"
    script.write_text(textwrap.dedent("""
        import numpy as np, ncore
        with ncore.Communicator.from_env() as comm:
            value = np.array([comm.rank + 1], dtype=np.int32)
            comm.allreduce(value, value, ncore.SUM)
            print(f"rank {comm.rank}/{comm.nranks} sum {value[0]}")
    """))
    env = dict(os.environ, NCORE_BACKEND="host")
    done = subprocess.run([sys.executable, "-m", "ncore.run", "-n", "3", "--no-tag", str(script)],
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert sorted(done.stdout.split("\n")[:-1]) == [f"rank {r}/3 sum 6" for r in range(3)]


def test_launcher_gives_torchrun_names_and_a_rendezvous(tmp_path):
    script = tmp_path / "env.py"
    script.write_text("import os\nprint(*(os.environ[k] for k in ('RANK', 'WORLD_SIZE', "
                      "'LOCAL_RANK', 'LOCAL_WORLD_SIZE', 'MASTER_ADDR', 'MASTER_PORT')))\n")
    env = {k: v for k, v in os.environ.items() if k not in ("MASTER_ADDR", "MASTER_PORT")}
    done = subprocess.run([sys.executable, "-m", "ncore.run", "-n", "2", "--backend", "host",
                           "--no-tag", str(script)], capture_output=True, text=True, env=env,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    lines = sorted(line.split() for line in done.stdout.splitlines())
    assert [line[:5] for line in lines] == [[str(r), "2", str(r), "2", "127.0.0.1"]
                                            for r in range(2)]
    assert lines[0][5] == lines[1][5] and 0 < int(lines[0][5]) < 65536  # one port


# Listening sockets on ports the kernel picks (bind to port 0), as NCCL's
# bootstrap and proxy make them, as fast as it can: each held a moment (at
# most 800 at once, within any descriptor limit), a connection never
# accepted (closing the listener resets it), until stdin closes.
_PORT_CHURN = """
import collections, random, select, socket, sys, time
held = collections.deque()
while not select.select([sys.stdin], [], [], 0)[0]:
    s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
    now = time.monotonic()
    held.append((now + random.uniform(0.05, 0.5), s))
    while held and (held[0][0] < now or len(held) > 800):
        held.popleft()[1].close()
"""

# torchrun's rendezvous as nccl.core programs do it (examples/nccl4py/
# common.py): rank 0, after its start-up (here half a second), listens on
# MASTER_PORT and sends every other rank the job's bytes.
_SHARE_OVER_MASTER_PORT = """
import os, socket, time
rank, n = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
address = (os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"]))
job = os.environ["NCORE_JOB_SECRET"].encode()
if rank == 0:
    time.sleep(0.5)
    with socket.create_server(address) as server:
        for _ in range(n - 1):
            connection, _ = server.accept()
            with connection:
                connection.sendall(job)
else:
    while True:
        try:
            with socket.create_connection(address, timeout=30) as connection:
                got = b""
                while len(got) < len(job):
                    chunk = connection.recv(len(job) - len(got))
                    assert chunk, f"rank {rank}: closed after {len(got)} bytes"
                    got += chunk
                assert got == job, f"rank {rank}: another job's bytes"
                break
        except ConnectionRefusedError:
            time.sleep(0.05)
"""


def _kernel_port_range():
    with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
        return tuple(int(x) for x in f.read().split())


@pytest.mark.skipif(not os.path.exists("/proc/sys/net/ipv4/ip_local_port_range"),
                    reason="no /proc/sys/net/ipv4/ip_local_port_range (not Linux)")
def test_launcher_port_is_none_the_kernel_hands_out(tmp_path):
    """MASTER_PORT lies outside the kernel's own range: a port it chose
    there could be handed, before rank 0 binds it, to any socket bound to
    port 0 (NCCL's, another job's), and a rank would meet that socket. Ten
    launches while another process makes such sockets all the time: every
    rank gets its own job's bytes. (With the port the kernel picked, each
    of three runs failed within its ten launches: a rank reset by the
    stranger's listener, or rank 0 finding the port taken.)"""
    lo, hi = _kernel_port_range()
    script = tmp_path / "share.py"
    script.write_text(_SHARE_OVER_MASTER_PORT)
    show = tmp_path / "port.py"
    show.write_text("import os\nprint(os.environ['MASTER_PORT'])\n")
    env = {k: v for k, v in os.environ.items() if k not in ("MASTER_ADDR", "MASTER_PORT")}
    churn = subprocess.Popen([sys.executable, "-c", _PORT_CHURN], stdin=subprocess.PIPE)
    try:
        for launch in range(10):
            done = subprocess.run([sys.executable, "-m", "ncore.run", "-n", "4", "--backend",
                                   "host", "--timeout", "60", str(script)],
                                  capture_output=True, text=True, env=env, timeout=90)
            assert done.returncode == 0, f"launch {launch}: {done.stderr}"
        port = subprocess.run([sys.executable, "-m", "ncore.run", "-n", "1", "--backend", "host",
                               "--no-tag", str(show)],
                              capture_output=True, text=True, env=env, timeout=60)
        stranger_ran = churn.poll() is None
    finally:
        churn.stdin.close()
        churn.wait(timeout=30)
    assert stranger_ran, "the process making port-0 listeners ended early"
    assert port.returncode == 0, port.stderr
    assert 1024 <= int(port.stdout) <= 65535 and not lo <= int(port.stdout) <= hi


def test_launcher_reports_a_failing_rank(tmp_path):
    script = tmp_path / "fail.py"
    script.write_text("import os, sys\nsys.exit(3 if os.environ['NCORE_RANK'] == '1' else 0)\n")
    done = subprocess.run([sys.executable, "-m", "ncore.run", "-n", "2", "--backend", "host",
                           str(script)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 3


@pytest.mark.parametrize("option,value", [("--timeout", "nan"), ("--timeout", "inf"),
                                          ("--timeout", "1e400"), ("--timeout", "-5"),
                                          ("--timeout", "0"), ("--grace", "nan"),
                                          ("--grace", "-1")])
def test_launcher_refuses_a_time_that_is_no_time(tmp_path, option, value):
    # float() reads nan, inf and 1e400 (infinity): they meant "no limit"
    # (tools/ncore-run refuses the same, tests/unit/test_launcher.c).
    script = tmp_path / "ok.py"
    script.write_text("pass\n")
    done = subprocess.run([sys.executable, "-m", "ncore.run", "-n", "1", "--backend", "host",
                           option, value, str(script)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2, done.stderr
    assert option in done.stderr and "finite number of seconds" in done.stderr


def test_ring_example_runs():
    example = os.path.join(os.path.dirname(__file__), "..", "examples", "ring.py")
    done = subprocess.run([sys.executable, "-m", "ncore.run", "-n", "4", "--backend", "host",
                           example], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 4 and all(line.endswith("ring sum 22 ok") for line in lines)


def _abort_from_another_thread(comm):
    import threading
    import time

    if comm.rank == 1:
        time.sleep(2.0)  # stay alive: rank 0's wait must end by its own abort
        return "idle"
    # wait_signal blocks in C without the GIL, so this thread can abort it.
    timer = threading.Timer(0.3, comm.abort)
    timer.start()
    started = time.monotonic()
    with pytest.raises(RuntimeError) as caught:
        comm.wait_signal(ncore.WaitSignalDesc(peer=1))
    timer.join()
    return type(caught.value).__name__, time.monotonic() - started


def test_abort_from_another_thread_unblocks_a_waiting_call():
    waited, idle = run_ranks(2, _abort_from_another_thread, destroy=False)
    assert waited[0] == "NcclClosed" and waited[1] < 1.5
    assert idle == "idle"
