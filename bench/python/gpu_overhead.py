#!/usr/bin/env python3
"""Per-call cost of the Python binding on the NCCL backend: one
rank on GPU 0, 8-byte allreduce (in place), send and recv on device memory
and one stream, in one run:

- C: ``build/bin/nccl_bench`` (raw NCCL and ncore's C call, same machine
  and run, a subprocess started first);
- ``ncore.raw``: the SWIG layer with integer pointers;
- ``ncore`` with a torch tensor and a torch stream, and with a CuPy array
  and a CuPy stream (each when installed);
- ``cupy.cuda.nccl`` (raw pointers: the thinnest Python wrapper of NCCL);
- ``torch.distributed`` (allreduce; NCCL process group of one rank).

Rounds of --calls calls per variant (torch.distributed: a tenth), the
variants interleaved (the order rotates each round), best of --rounds after
a warm-up round. Allreduce is timed to the end of the GPU's work (calls per
second); send and recv as enqueue calls inside groups of 64 sends then 64
receives (only the timed half counts). Writes JSON (--json, default
stdout). Needs the extension built (bindings/python/build-ext.sh) and
torch or CuPy.

    python3 bench/python/gpu_overhead.py [--calls N] [--rounds R] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from typing import Callable, Dict, List, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))

import ncore  # noqa: E402  (after the path above)
from ncore import raw  # noqa: E402

BATCH = 64


def optional(name: str):
    try:
        return __import__(name)
    except ImportError:
        return None


torch = optional("torch")
cupy = optional("cupy")


def c_baseline(calls: int, rounds: int) -> Dict[str, dict]:
    """nccl_bench's raw NCCL and ncore C figures, by operation."""
    binary = os.path.join(ROOT, "build", "bin", "nccl_bench")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "c.json")
        done = subprocess.run([binary, "--ops", "allreduce_inplace,send,recv", "--calls", str(calls),
                               "--rounds", str(rounds), "--json", out], timeout=300)
        with open(out) as f:  # written even when a result check failed (exit 1)
            report = json.load(f)
        if done.returncode != 0 or not report.get("checked"):
            print("gpu_overhead: nccl_bench's result check failed (see above)", file=sys.stderr)
        # The Python allreduces are in place: on one rank NCCL launches
        # nothing for them, so the comparison is of the host-side cost.
        return {("allreduce" if r["op"] == "allreduce_inplace" else r["op"]): r
                for r in report["results"]}


class Variant:
    """One way of making the calls: allreduce(), send(), recv() issue one
    call each; group_start/group_end bracket send/recv batches."""

    def __init__(self, name: str, allreduce: Callable[[], None],
                 send: Optional[Callable[[], None]] = None,
                 recv: Optional[Callable[[], None]] = None,
                 group: Optional[tuple] = None, calls_scale: float = 1.0):
        self.name, self.allreduce, self.send, self.recv = name, allreduce, send, recv
        self.group, self.calls_scale = group, calls_scale


def synchronize() -> None:
    if torch is not None:
        torch.cuda.synchronize()
    else:
        cupy.cuda.Device(0).synchronize()


def time_allreduce(v: Variant, calls: int) -> float:
    n = max(1, int(calls * v.calls_scale))
    fn = v.allreduce
    synchronize()
    start = time.perf_counter()
    for _ in range(n):
        fn()
    synchronize()
    return (time.perf_counter() - start) / n


def time_p2p(v: Variant, calls: int, timed_send: bool) -> float:
    start_group, end_group = v.group
    spent, done = 0.0, 0
    send, recv = v.send, v.recv
    synchronize()
    while done + BATCH <= calls:
        start_group()
        t0 = time.perf_counter()
        for _ in range(BATCH):
            send()
        t1 = time.perf_counter()
        for _ in range(BATCH):
            recv()
        t2 = time.perf_counter()
        end_group()
        spent += (t1 - t0) if timed_send else (t2 - t1)
        done += BATCH
    synchronize()
    return spent / done


# What one call of the package spends in each of its steps, timed alone
# (µs; filled by variants(), reported under "pieces_us").
PIECES: Dict[str, float] = {}


def time_pieces(comm, objects: Dict[str, tuple], rounds: int, n: int = 20000) -> None:
    """Best of `rounds` loops of n calls of each step the package makes per
    call, for each framework's (buffer, stream): the buffer's table lookup
    (call_args: key read + dict), the key read alone, the stream read, and
    a Python function call that does nothing (the price of one more frame)."""
    from ncore import buffer as nb
    from ncore._collectives import _op_value

    def nothing():
        return None

    handle = comm.ptr
    steps: Dict[str, Callable[[], object]] = {"empty Python call": nothing,
                                              "op value (NcclRedOp -> int)":
                                              lambda: _op_value(ncore.SUM)}
    for name, (buf, stream_obj) in objects.items():
        reader = nb._key_reader(type(buf))
        comm._call_args(handle, buf, "sendbuf")  # fill the table
        steps[f"{name}: buffer (call_args, a hit)"] = (
            lambda b=buf: comm._call_args(handle, b, "sendbuf"))
        if reader is not None:
            steps[f"{name}: key read alone"] = lambda b=buf, r=reader: r(b)
        steps[f"{name}: stream read"] = lambda st=stream_obj: nb.resolve_stream(st)
    for name, fn in steps.items():
        best_t = float("inf")
        for _ in range(rounds + 1):
            start = time.perf_counter()
            for _ in range(n):
                fn()
            best_t = min(best_t, (time.perf_counter() - start) / n)
        PIECES[name] = round(best_t * 1e6, 4)


def variants(rounds: int = 5) -> List[Variant]:
    uid = ncore.get_unique_id(ncore.Backend.NCCL)
    comm = ncore.Communicator.init(1, 0, uid, ncore.NCCLConfig(backend=ncore.Backend.NCCL, device=0))
    handle = comm.ptr
    out: List[Variant] = []
    package_group = (ncore.group_start, ncore.group_end)
    if torch is not None:
        stream = torch.cuda.Stream(device=0)
        stream_ptr = stream.cuda_stream
        t_send = torch.zeros(2, device="cuda:0")
        t_recv = torch.zeros(2, device="cuda:0")
    else:
        stream = cupy.cuda.Stream(non_blocking=True)
        stream_ptr = stream.ptr
        t_send = t_recv = None
    if cupy is not None:
        c_send = cupy.zeros(2, dtype=cupy.float32)
        c_recv = cupy.zeros(2, dtype=cupy.float32)
        c_stream = cupy.cuda.ExternalStream(stream_ptr)
    # raw pointers for the thin wrappers
    if t_send is not None:
        sp, rp = t_send.data_ptr(), t_recv.data_ptr()
    else:
        sp, rp = c_send.data.ptr, c_recv.data.ptr
    f32, add = raw.NCORE_FLOAT32, raw.NCORE_SUM
    # The compiled module itself; ncore.raw's functions are the same objects
    # (ncore.i binds them directly), so the two rows below measure alike.
    capi = raw._ncore_c
    out.append(Variant(
        "ncore capi",  # the compiled SWIG functions, no Python frame: the floor
        lambda: capi.ncore_allreduce(handle, rp, rp, 2, f32, add, stream_ptr),
        lambda: capi.ncore_send(handle, sp, 2, f32, 0, stream_ptr),
        lambda: capi.ncore_recv(handle, rp, 2, f32, 0, stream_ptr),
        (capi.ncore_group_start, capi.ncore_group_end)))
    out.append(Variant(
        "ncore.raw",
        lambda: raw.ncore_allreduce(handle, rp, rp, 2, f32, add, stream_ptr),
        lambda: raw.ncore_send(handle, sp, 2, f32, 0, stream_ptr),
        lambda: raw.ncore_recv(handle, rp, 2, f32, 0, stream_ptr),
        (raw.ncore_group_start, raw.ncore_group_end)))

    def package(name: str, send_buf, recv_buf, stream_obj) -> Variant:
        """The ncore package with one framework's buffers and stream."""
        return Variant(name,
                       lambda: comm.allreduce(recv_buf, recv_buf, ncore.SUM, stream=stream_obj),
                       lambda: comm.send(send_buf, 0, stream=stream_obj),
                       lambda: comm.recv(recv_buf, 0, stream=stream_obj), package_group)

    objects: Dict[str, tuple] = {}
    if t_send is not None:
        out.append(package("ncore torch", t_send, t_recv, stream))
        objects["torch"] = (t_send, stream)
    if cupy is not None:
        out.append(package("ncore cupy", c_send, c_recv, c_stream))
        objects["cupy"] = (c_send, c_stream)
        try:
            from cupy.cuda import nccl as cnccl
            cc = cnccl.NcclCommunicator(1, cnccl.get_unique_id(), 0)
            out.append(Variant(
                "cupy.cuda.nccl",
                lambda: cc.allReduce(rp, rp, 2, cnccl.NCCL_FLOAT32, cnccl.NCCL_SUM, stream_ptr),
                lambda: cc.send(sp, 2, cnccl.NCCL_FLOAT32, 0, stream_ptr),
                lambda: cc.recv(rp, 2, cnccl.NCCL_FLOAT32, 0, stream_ptr),
                (cnccl.groupStart, cnccl.groupEnd)))
        except Exception as error:  # noqa: BLE001 - report, keep the others
            print(f"gpu_overhead: cupy.cuda.nccl skipped: {error}", file=sys.stderr)
    if torch is not None and torch.distributed.is_available():
        import torch.distributed as dist
        try:
            dist.init_process_group("nccl", init_method="tcp://127.0.0.1:29517",
                                    rank=0, world_size=1)
            t_dist = torch.zeros(2, device="cuda:0")

            out.append(Variant("torch.distributed", lambda: dist.all_reduce(t_dist),
                               calls_scale=0.1))
        except Exception as error:  # noqa: BLE001
            print(f"gpu_overhead: torch.distributed skipped: {error}", file=sys.stderr)
    time_pieces(comm, objects, rounds)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    if torch is None and cupy is None:
        print("gpu_overhead: needs torch or CuPy", file=sys.stderr)
        return 1
    c = c_baseline(args.calls, args.rounds)
    vs = variants(args.rounds)
    best: Dict[tuple, float] = {}
    measures = [("allreduce", lambda v: time_allreduce(v, args.calls))]
    measures += [("send", lambda v: time_p2p(v, args.calls, True)),
                 ("recv", lambda v: time_p2p(v, args.calls, False))]
    for r in range(args.rounds + 1):
        for op, measure in measures:
            order = vs[r % len(vs):] + vs[:r % len(vs)]
            for v in order:
                if op != "allreduce" and v.send is None:
                    continue
                t = measure(v)
                if r > 0:
                    key = (op, v.name)
                    best[key] = min(best.get(key, float("inf")), t)
    results = []
    for (op, name), t in sorted(best.items()):
        row = {"op": op, "variant": name, "us": round(t * 1e6, 4),
               "added_over_c_us": round(t * 1e6 - c[op]["ncore_us"], 4)}
        cupy_t = best.get((op, "cupy.cuda.nccl"))
        if cupy_t is not None:
            row["added_over_cupy_nccl_us"] = round((t - cupy_t) * 1e6, 4)
        results.append(row)
    report = {
        "bench": "python-gpu", "calls": args.calls, "rounds": args.rounds, "batch": BATCH,
        "python": sys.version.split()[0],
        "torch": getattr(torch, "__version__", None), "cupy": getattr(cupy, "__version__", None),
        "c": {op: {"raw_nccl_us": r["raw_us"], "ncore_us": r["ncore_us"]} for op, r in c.items()},
        "results": results,
        "pieces_us": PIECES,
    }
    text = json.dumps(report, indent=1)
    if args.json:
        with open(args.json, "w") as f:
            f.write(text + "\n")
    print(text)
    if torch is not None and torch.distributed.is_available() and torch.distributed.is_initialized():
        torch.distributed.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
