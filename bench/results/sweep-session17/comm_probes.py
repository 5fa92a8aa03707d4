#!/usr/bin/env python3
"""Issue 26, item 5, session 17: the probes behind docs/performance.md's
"which communicator" finding (4 x H200), kept with their output here. One
rank per GPU under ncore-run, from the repository root:

    PROBE=sequence build/bin/ncore-run -n 4 -- env PYTHONPATH=$PWD/bindings/python \\
        python3 bench/results/sweep-session17/comm_probes.py

PROBE=sequence  allreduce_vs_torch.py's sequence (8 B to 32 MiB, 7 rounds, 4
                sides) and allreduce_comm_spread.py's (32 MiB, 25 rounds,
                and each library's call after a barrier) in turn, REPS (2)
                times, in one process: per block the wall time per call and the
                steady GPU time per call (events after call 1 and call N on
                the current stream: no skew of the ranks' block starts).
PROBE=offsets   3 ncore communicators (the first before torch's, two after)
                and torch's two groups, each on 3 buffers at other offsets.
PROBE=splits    K (6) ncore communicators (the first and splits of it) at
                SIZE; run with NCCL_PROTO=Simple / LL128 to see the protocol.
PROBE=links     as splits, then per communicator 500 calls alone between
                two readings of `nvidia-smi nvlink -gt d` (bytes per link).
Rank 0 prints one JSON object per result; times are the slowest rank's, us.
"""
import json
import os
import re
import statistics
import subprocess
import time

import torch
import torch.distributed as dist

import ncore

PROBE = os.environ.get("PROBE", "splits")
SIZE = int(os.environ.get("SIZE", str(32 << 20)))
rank, n = int(os.environ["NCORE_RANK"]), int(os.environ["NCORE_NRANKS"])
first = ncore.Communicator.from_env()
torch.cuda.set_device(first.device.device_id)
tiny = torch.zeros(1, device="cuda")


def barrier():
    first.allreduce(tiny, tiny, ncore.SUM)
    torch.cuda.synchronize()


def timed(call, iters, after_barrier=False):
    """(wall seconds per call, steady GPU seconds per call)."""
    if after_barrier:
        barrier()
    torch.cuda.synchronize()
    e1, e2 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start = time.perf_counter()
    call()
    e1.record()
    for _ in range(iters - 1):
        call()
    e2.record()
    torch.cuda.synchronize()
    return (time.perf_counter() - start) / iters, e1.elapsed_time(e2) * 1e-3 / (iters - 1)


def rotate(sides, iters, rounds):
    """Each side's (wall, steady) per round, the sides' order rotating."""
    for _, call in sides:
        timed(call, max(2, iters // 10))
    res = {name: [] for name, _ in sides}
    for r in range(rounds):
        for k in range(len(sides)):
            name, call = sides[(r + k) % len(sides)]
            res[name].append(timed(call, iters, name.endswith("_bar")))
    return res


def slowest_rank(values):
    t = torch.tensor(values, dtype=torch.float64, device="cuda")
    first.allreduce(t, t, ncore.MAX)
    torch.cuda.synchronize()
    return [v * 1e6 for v in t.tolist()]


def summary(res, keep=lambda name: True):
    """name -> [wall min, wall median, steady min, steady median] (us)."""
    names = [name for name in res if keep(name)]
    vals = []
    for name in names:
        wall, steady = [w for w, _ in res[name]], [s for _, s in res[name]]
        vals += [min(wall), statistics.median(wall), min(steady), statistics.median(steady)]
    us = slowest_rank(vals)
    return {name: [round(u, 2) for u in us[4 * i:4 * i + 4]] for i, name in enumerate(names)}


def emit(**row):
    if rank == 0:
        print(json.dumps(row), flush=True)


def with_torch():
    store = f"file:///tmp/ncore-probe-store-{os.environ['NCORE_UNIQUE_ID'][:16]}"
    dist.init_process_group("nccl", init_method=store, rank=rank, world_size=n,
                            device_id=torch.device("cuda", first.device.device_id))
    return dist.new_group(list(range(n)))


def new_comm():
    uid = [ncore.get_unique_id() if rank == 0 else None]
    dist.broadcast_object_list(uid, src=0)
    return ncore.Communicator.init(n, rank, uid[0])


def allreduce_on(comm, x):
    return lambda: comm.allreduce(x, x, ncore.SUM)


comms = [first]
if PROBE == "sequence":
    other = with_torch()

    def sides(x, barriers):
        s = [("ncore", allreduce_on(first, x)), ("torch", lambda: dist.all_reduce(x)),
             ("torch_again", lambda: dist.all_reduce(x)),
             ("torch_other", lambda: dist.all_reduce(x, group=other))]
        return s + ([("ncore_bar", allreduce_on(first, x)),
                     ("torch_bar", lambda: dist.all_reduce(x))] if barriers else [])

    for rep in range(int(os.environ.get("REPS", "2"))):
        for phase, sizes, rounds, barriers in ((f"A{rep}", [8 * 4 ** k for k in range(12)], 7, False),
                                               (f"B{rep}", [32 << 20], 25, True)):
            for size in sizes:
                x = torch.ones(max(1, size // 4), dtype=torch.float32, device="cuda")
                iters = 2000 if size <= (1 << 20) else 1000 if size <= (16 << 20) else 200
                res = rotate(sides(x, barriers), iters, rounds)
                if size >= (32 << 20):
                    us = summary(res)
                    emit(phase=phase, bytes=size, us=us,
                         torch_over_ncore_wall=round(us["torch"][0] / us["ncore"][0], 4),
                         torch_over_ncore_steady=round(us["torch"][2] / us["ncore"][2], 4))
    dist.destroy_process_group()
elif PROBE == "offsets":
    other = with_torch()
    comms += [new_comm(), new_comm()]
    count = SIZE // 4
    big = torch.ones(3 * count + (8 << 20), dtype=torch.float32, device="cuda")
    offsets = [0, count + (2 << 20) // 4 + 1024, 2 * count + (5 << 20) // 4 + 8192]
    sides = []
    for b, off in enumerate(offsets):
        x = big[off:off + count]
        sides += [(f"ncore{c}_x{b}", allreduce_on(comm, x)) for c, comm in enumerate(comms)]
        sides += [(f"torch_x{b}", lambda x=x: dist.all_reduce(x)),
                  (f"torchother_x{b}", lambda x=x: dist.all_reduce(x, group=other))]
    res = rotate(sides, 200 if SIZE >= (32 << 20) else 1000, int(os.environ.get("ROUNDS", "15")))
    emit(bytes=SIZE, steady_min_us={k: v[2] for k, v in summary(res).items()})
    dist.destroy_process_group()
else:  # splits, links
    comms += [first.split(0, rank) for _ in range(int(os.environ.get("K", "6")) - 1)]
    x = torch.ones(SIZE // 4, dtype=torch.float32, device="cuda")
    sides = [(f"c{i}", allreduce_on(c, x)) for i, c in enumerate(comms)]
    iters = 200 if SIZE >= (32 << 20) else 1000
    us = summary(rotate(sides, iters, int(os.environ.get("ROUNDS", "15"))))
    emit(bytes=SIZE, nccl_proto=os.environ.get("NCCL_PROTO"),
         steady_min_median_us={k: v[2:] for k, v in us.items()})
    if PROBE == "links":
        def link_bytes():
            text = subprocess.run(["nvidia-smi", "nvlink", "-gt", "d"], capture_output=True,
                                  text=True).stdout
            out, gpu = {}, None
            for line in text.splitlines():
                m = re.match(r"GPU (\d+):", line)
                if m:
                    gpu = int(m.group(1))
                m = re.search(r"Link (\d+): Data (Tx|Rx): (\d+) KiB", line)
                if m and gpu is not None:
                    out[(gpu, m.group(2), int(m.group(1)))] = int(m.group(3))
            return out
        for name, call in sides:
            barrier()
            before = link_bytes() if rank == 0 else None
            barrier()
            timed(call, 500)
            barrier()
            if rank == 0:
                after = link_bytes()
                spread = {}
                for gpu, direction in sorted({k[:2] for k in after}):
                    per_link = [after[k] - before.get(k, 0) for k in sorted(after)
                                if k[:2] == (gpu, direction)]
                    mean = statistics.mean(per_link)
                    if mean > 0:
                        spread[f"gpu{gpu}_{direction}"] = [round(max(per_link) / mean, 4),
                                                           round(min(per_link) / mean, 4)]
                emit(bytes=SIZE, comm=name, steady_min_us=us[name][2],
                     link_max_min_over_mean=spread)
            barrier()
for comm in comms[::-1]:
    comm.destroy()
