"""Launcher: ``python -m ncore.run -n N [--backend host|nccl] script.py [args]``
(or ``-m module``) starts N ranks as tools/ncore-run does, each with
NCORE_RANK, NCORE_NRANKS and NCORE_UNIQUE_ID (the 128-byte id as 256 hex
characters, made here by ncore_get_unique_id for the AUTO-resolved backend,
or the one --backend / NCORE_BACKEND names). In the ranks,
``Communicator.from_env()`` joins.

``--oversubscribe`` (or NCORE_OVERSUBSCRIBE=1) lets several NCCL ranks share
one GPU: each rank gets its own NCCL_HOSTID and NCCL_SOCKET_IFNAME=lo (unless
already set), so NCCL connects them through sockets as ranks on separate
nodes -- correct and slow, for correctness runs only, as tools/ncore-run's
option of the same name.

Each rank also gets the names torchrun gives (RANK, WORLD_SIZE, LOCAL_RANK,
LOCAL_WORLD_SIZE) and a rendezvous address (MASTER_ADDR, default 127.0.0.1;
MASTER_PORT, default a free port), so programs written for other launchers,
e.g. nccl.core programs that share their unique id themselves (as
examples/nccl4py do), run unchanged.

Each rank's stdout and stderr are relayed line by line (whole lines only,
so the ranks' output never interleaves mid-line), prefixed with "[rank] "
when --tag is given (tools/ncore-run always prefixes).

Exit status: 0 if every rank exited 0, else the first failing rank's status
(a rank killed by a signal counts as 128 + signal). When one rank fails, the
others get --grace seconds to finish before they are terminated."""

from __future__ import annotations

import argparse
import math
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from typing import IO, Optional, Sequence

__all__ = ["main", "launch"]


def _unique_id_hex(backend: Optional[str]) -> str:
    from ._lib import raw
    from ._types import Backend

    requested = Backend[backend.upper()] if backend else Backend.AUTO
    return raw.ncore_get_unique_id(int(Backend.resolve(requested))).hex()


_output_lock = threading.Lock()


def _relay(source: IO[bytes], target: IO[bytes], prefix: bytes) -> None:
    """Copies `source` to `target` one whole line at a time."""
    for line in iter(source.readline, b""):
        if not line.endswith(b"\n"):
            line += b"\n"
        with _output_lock:
            target.write(prefix + line)
            target.flush()
    source.close()


def _oversubscribe_requested() -> bool:
    value = os.environ.get("NCORE_OVERSUBSCRIBE", "")
    return value not in ("", "0")


def _free_port() -> int:
    """A TCP port free on this host now (the ranks' rank 0 binds it soon
    after; another program taking it in between makes that rank fail)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _isolate_host(env: dict, job: str, rank: int) -> None:
    """Gives one rank its own NCCL host identity (as
    ncore_launch_env_isolate_host in tools/ncore_launch_env.h does for
    ncore-run): NCCL refuses two ranks on one GPU only because they share a
    host identity, which it takes from NCCL_HOSTID. User settings win."""
    env["NCORE_OVERSUBSCRIBE"] = "1"
    env.setdefault("NCCL_HOSTID", f"ncore-{job}-rank{rank}")
    env.setdefault("NCCL_SOCKET_IFNAME", "lo")


def launch(nranks: int, command: Sequence[str], backend: Optional[str] = None,
           grace: float = 5.0, timeout: Optional[float] = None, tag: bool = False,
           oversubscribe: Optional[bool] = None) -> int:
    """Starts `nranks` copies of `command` with the rank environment, relays
    their output line by line (prefixed "[rank] " if `tag`) and waits for
    them. `oversubscribe` (default: NCORE_OVERSUBSCRIBE) gives each rank its
    own NCCL host identity. Returns the exit status described in the module
    docstring."""
    uid = _unique_id_hex(backend)
    if oversubscribe is None:
        oversubscribe = _oversubscribe_requested()
    processes, relays = [], []
    rendezvous = {"MASTER_ADDR": os.environ.get("MASTER_ADDR", "127.0.0.1"),
                  "MASTER_PORT": os.environ.get("MASTER_PORT") or str(_free_port())}
    for rank in range(nranks):
        env = dict(os.environ, NCORE_RANK=str(rank), NCORE_NRANKS=str(nranks),
                   NCORE_UNIQUE_ID=uid, RANK=str(rank), WORLD_SIZE=str(nranks),
                   LOCAL_RANK=str(rank), LOCAL_WORLD_SIZE=str(nranks), **rendezvous)
        if backend:
            env["NCORE_BACKEND"] = backend
        if oversubscribe:
            _isolate_host(env, str(os.getpid()), rank)
        process = subprocess.Popen(list(command), env=env, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE)
        processes.append(process)
        prefix = f"[{rank}] ".encode() if tag else b""
        for source, target in ((process.stdout, sys.stdout.buffer),
                               (process.stderr, sys.stderr.buffer)):
            relay = threading.Thread(target=_relay, args=(source, target, prefix), daemon=True)
            relay.start()
            relays.append(relay)
    status = 0
    deadline = None if timeout is None else time.monotonic() + timeout
    pending = list(processes)
    while pending:
        for process in list(pending):
            code = process.poll()
            if code is None:
                continue
            pending.remove(process)
            if code != 0 and status == 0:
                status = code if code > 0 else 128 - code
                # Give the others a moment to notice (NcclRemoteError), then stop them.
                deadline = time.monotonic() + grace if deadline is None else min(
                    deadline, time.monotonic() + grace)
        if pending and deadline is not None and time.monotonic() > deadline:
            for process in pending:
                process.send_signal(signal.SIGTERM)
            for process in pending:
                try:
                    process.wait(timeout=grace)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
            if status == 0:
                status = 124  # the timeout's status, as timeout(1)
            break
        time.sleep(0.01)
    for relay in relays:
        relay.join(timeout=grace)
    return status


def _version() -> str:
    from ._lib import raw

    return raw.ncore_version_string()


def _seconds(text: str, allow_zero: bool = False) -> float:
    """An argparse type: a finite number of seconds above 0 (or at least 0).
    float() also reads "nan", "inf" and 1e400 (infinity), which compared as
    no limit at all; those are refused as tools/ncore-run refuses them."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < 0 or (value == 0 and not allow_zero):
        bound = "0 or more" if allow_zero else "above 0"
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a finite number of seconds {bound}")
    return value


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(prog="python -m ncore.run", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"%(prog)s (ncore {_version()})")
    parser.add_argument("-n", "--nranks", type=int, required=True, help="number of ranks")
    parser.add_argument("--backend", choices=["host", "nccl"], help="NCORE_BACKEND for the ranks")
    parser.add_argument("--grace", type=lambda text: _seconds(text, allow_zero=True),
                        default=5.0,
                        help="seconds the other ranks get after one fails")
    parser.add_argument("--timeout", type=_seconds,
                        help="seconds before all ranks are stopped (default: no limit)")
    parser.add_argument("--tag", action="store_true", help='prefix output lines with "[rank] "')
    parser.add_argument("--oversubscribe", action="store_true", default=None,
                        help="several NCCL ranks per GPU: each rank its own NCCL_HOSTID "
                             "and NCCL_SOCKET_IFNAME=lo (unless set); correctness runs only "
                             "(also NCORE_OVERSUBSCRIBE=1)")
    parser.add_argument("-m", dest="module", help="run a module instead of a script")
    parser.add_argument("program", nargs=argparse.REMAINDER, help="script.py [args]")
    args = parser.parse_args(argv)
    if args.nranks < 1:
        parser.error("-n must be at least 1")
    if args.module:
        command = [sys.executable, "-m", args.module, *args.program]
    elif args.program:
        command = [sys.executable, *args.program]
    else:
        parser.error("give a script (or -m module)")
    return launch(args.nranks, command, args.backend, args.grace, args.timeout, args.tag,
                  args.oversubscribe)


if __name__ == "__main__":
    sys.exit(main())
