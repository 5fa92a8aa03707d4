#!/usr/bin/env python3
"""Per-call overhead of the Python binding for calls that move no data, next
to the same calls from C.

    /usr/bin/python3 bench/python/send_overhead.py [--iterations N]

On a 1-rank host communicator it times the rank query and an empty group
(group_start + group_end) three ways: C (bench/c/overhead.c, compiled here with gcc
against build/lib), Python through the SWIG layer (ncore.raw) and Python
through the package (Communicator.rank, ncore.group_start/group_end, and
``with ncore.group()``). Best of 5 runs; prints ns per call. Needs
build/lib/libncore.so and the extension built (bindings/python/test.sh)."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from typing import Callable

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))

import numpy  # noqa: E402
import ncore  # noqa: E402  (after the path above)
from ncore import raw  # noqa: E402


def best_ns(loop: Callable[[int], None], iterations: int, runs: int = 5) -> float:
    """Best time per iteration of loop(iterations) over `runs` runs, in ns."""
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter_ns()
        loop(iterations)
        best = min(best, (time.perf_counter_ns() - start) / iterations)
    return best


def python_timings(iterations: int) -> dict:
    """ns per call of each Python variant."""
    uid = ncore.get_unique_id(ncore.Backend.HOST)
    comm = ncore.Communicator.init(1, 0, uid, ncore.NCCLConfig(backend=ncore.Backend.HOST))
    handle = comm.ptr

    def raw_rank(n: int) -> None:
        for _ in range(n):
            raw.ncore_comm_rank(handle)

    def package_rank(n: int) -> None:
        for _ in range(n):
            comm.rank

    def raw_group(n: int) -> None:
        for _ in range(n):
            raw.ncore_group_start()
            raw.ncore_group_end()

    def package_group(n: int) -> None:
        for _ in range(n):
            ncore.group_start()
            ncore.group_end()

    def package_group_with(n: int) -> None:
        for _ in range(n):
            with ncore.group():
                pass

    send_buf = numpy.zeros(8, dtype=numpy.uint8)
    recv_buf = numpy.empty(8, dtype=numpy.uint8)
    send_ptr, recv_ptr = send_buf.ctypes.data, recv_buf.ctypes.data

    def raw_sendrecv(n: int) -> None:
        for _ in range(n):
            raw.ncore_group_start()
            raw.ncore_send(handle, send_ptr, 8, raw.NCORE_UINT8, 0, None)
            raw.ncore_recv(handle, recv_ptr, 8, raw.NCORE_UINT8, 0, None)
            raw.ncore_group_end()

    def package_sendrecv(n: int) -> None:
        for _ in range(n):
            ncore.group_start()
            comm.send(send_buf, 0)
            comm.recv(recv_buf, 0)
            ncore.group_end()

    def empty_loop(n: int) -> None:
        for _ in range(n):
            pass

    loop_cost = best_ns(empty_loop, iterations)
    results = {name: best_ns(fn, iterations) - loop_cost for name, fn in (
        ("raw rank", raw_rank), ("package rank", package_rank),
        ("raw group", raw_group), ("package group", package_group),
        ("package with group()", package_group_with),
        ("raw sendrecv", raw_sendrecv), ("package sendrecv", package_sendrecv))}
    comm.destroy()
    return results


def c_timings(iterations: int) -> dict:
    """ns per call from C, or {} when gcc or the library is missing."""
    include, libdir = os.path.join(ROOT, "abi", "include"), os.path.join(ROOT, "build", "lib")
    with tempfile.TemporaryDirectory() as tmp:
        binary = os.path.join(tmp, "c_overhead")
        try:
            subprocess.run(["gcc", "-O2", "-I", include, os.path.join(HERE, "..", "c", "overhead.c"),
                            "-o", binary, "-L", libdir, "-lncore", f"-Wl,-rpath,{libdir}"],
                           check=True, capture_output=True, text=True, timeout=120)
            out = subprocess.run([binary, str(iterations * 5)], check=True, capture_output=True,
                                 text=True, timeout=300).stdout
        except (OSError, subprocess.SubprocessError) as error:
            print(f"C side skipped: {error}", file=sys.stderr)
            return {}
    return {name: float(value) for name, value in (line.split() for line in out.splitlines())}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=200000,
                        help="calls per run from Python (C makes 5x as many)")
    args = parser.parse_args()
    c = c_timings(args.iterations)
    py = python_timings(args.iterations)
    rows = [("rank query", c.get("rank"), py["raw rank"], py["package rank"]),
            ("group_start + group_end", c.get("group"), py["raw group"], py["package group"]),
            ("group(send+recv 8 B, self)", c.get("sendrecv"), py["raw sendrecv"],
             py["package sendrecv"])]
    print(f"{'call':<26}{'C':>10}{'ncore.raw':>12}{'ncore':>12}   (ns per call)")
    for name, c_ns, raw_ns, package_ns in rows:
        c_text = f"{c_ns:.1f}" if c_ns is not None else "n/a"
        print(f"{name:<26}{c_text:>10}{raw_ns:>12.1f}{package_ns:>12.1f}")
    print(f"{'with ncore.group(): pass':<26}{'':>10}{'':>12}{py['package with group()']:>12.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
