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
