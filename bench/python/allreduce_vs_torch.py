#!/usr/bin/env python3
"""ncore's allreduce on torch tensors against torch.distributed's, one rank
per GPU, the same processes, GPUs and run:

    python3 -m ncore.run -n 4 bench/python/allreduce_vs_torch.py [--json FILE]

Sizes 8 B to --max bytes (float32, x4 steps, and --max itself: 1 GiB by
default, which the x4 steps from 8 B pass over). Per size and side: --iters
allreduces enqueued on the current stream, then torch.cuda.synchronize();
time per call; the sides interleaved (which goes first rotates), best of
--rounds (7) after a warm-up: with 3, a size where both sides run the same
NCCL kernel moved by 2 % between runs. torch's call is timed twice in the
rotation (torch_us, torch_again_us) and once on a second process group
(torch_other_group_us: its own NCCL communicator, of the same config): the
controls, how far the same call differs from itself in the run and from
the same call on another communicator, which torch / ncore must exceed to
mean anything. Each library's call is also timed on --comms (3)
communicators of its own, made alternately (ncore: its first and splits of
it; torch: its default group, the second group and more groups), in the
same rotation (ncore_comms_us, torch_comms_us: the first entries are
ncore_us's and torch_us's communicators): on 4 x H200 and 4 x H100 NCCL's
kernel runs up to 2 % faster on one communicator than on another of the
same config, in either library, a communicator made in the same place of
a process keeping much the same speed in the next (docs/performance.md),
so where both sides run that kernel back to back torch_over_ncore
compares two communicators as much as two libraries;
torch_over_ncore_comms compares the libraries, their means over their
communicators. *_enqueue_us: each side's time per call until its last call
returned (near its time per call, the host paces the calls, not the GPU).
torch.distributed's NCCL process group meets through a file store (no port
to agree on). Rank 0 prints and writes one JSON object: per size the
microseconds per call of each side and their ratio torch / ncore (>= 1:
ncore is as fast or faster).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from functools import partial

import torch
import torch.distributed as dist

import ncore


def timed(call, iters: int) -> tuple:
    """Seconds per call, and per call until the last call returned (near
    the first, the host paces the calls; well below it, the GPU does)."""
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(iters):
        call()
    enqueued = time.perf_counter() - start
    torch.cuda.synchronize()
    return (time.perf_counter() - start) / iters, enqueued / iters


def rotated(sides: list, iters: int, rounds: int) -> dict:
    """Each side's timed() results, one per round, by name; which side
    goes first rotates from round to round."""
    results = {name: [] for name, _ in sides}
    for r in range(rounds):
        for k in range(len(sides)):
            name, call = sides[(r + k) % len(sides)]
            results[name].append(timed(call, iters))
    return results


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--max", type=int, default=1 << 30)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--comms", type=int, default=3)
    parser.add_argument("--json")
    args = parser.parse_args()
    rank, nranks = int(os.environ["NCORE_RANK"]), int(os.environ["NCORE_NRANKS"])
    comm = ncore.Communicator.from_env()  # GPU: local rank % devices
    device = comm.device.device_id
    torch.cuda.set_device(device)
    store_dir = os.environ.get("BENCH_STORE_DIR", "/tmp")
    store = f"file://{store_dir}/ncore-bench-torch-store-{os.environ['NCORE_UNIQUE_ID'][:16]}"
    dist.init_process_group("nccl", init_method=store, rank=rank, world_size=nranks,
                            device_id=torch.device("cuda", device))
    # More communicators over the same ranks for each library, made
    # alternately; a torch group's first collective (the warm-up below)
    # creates it.
    comms, groups = [comm], [None]  # None: torch's default group
    for _ in range(max(args.comms, 2) - 1):
        groups.append(dist.new_group(list(range(nranks))))
        comms.append(comm.split(0, rank))
    results = []
    sizes = []
    size = 8
    while size <= args.max:
        sizes.append(size)
        size *= 4
    if not sizes or sizes[-1] != args.max:
        sizes.append(args.max)
    for size in sizes:
        count = size // 4 if size >= 4 else 1
        x = torch.ones(count, dtype=torch.float32, device="cuda")
        # Each timed block lasts 20 ms or more: 200 calls of 2 MiB (5 ms on
        # 4 GPUs) left the sides 0.5-0.7 % apart in two runs.
        iters = (2000 if size <= (1 << 20) else 1000 if size <= (16 << 20)
                 else 200 if size <= (64 << 20) else 20)

        def ours(c=comm):
            c.allreduce(x, x, ncore.SUM)

        def theirs(group=None):
            dist.all_reduce(x, group=group)

        # The controls: torch's call timed a second time in the rotation
        # (how far one call differs from itself in this run) and each
        # library's call on its other communicators (how far communicators
        # differ).
        sides = ([("ncore", ours), ("torch", theirs), ("torch_again", theirs)]
                 + [(f"torch_comm{i}", partial(theirs, g)) for i, g in enumerate(groups) if i]
                 + [(f"ncore_comm{i}", partial(ours, c)) for i, c in enumerate(comms) if i])
        for _, call in sides:
            timed(call, max(1, iters // 10))
        best = {name: min(times) for name, times in rotated(sides, iters, args.rounds).items()}
        names = [name for name, _ in sides]
        # The slowest rank's figures (allreduce of the maxima): each side's
        # time, then ncore's and torch's enqueue times.
        t = torch.tensor([best[name][0] for name in names]
                         + [best["ncore"][1], best["torch"][1]],
                         dtype=torch.float64, device="cuda")
        comm.allreduce(t, t, ncore.MAX)
        torch.cuda.synchronize()
        us = dict(zip(names + ["ncore_enqueue", "torch_enqueue"], (v * 1e6 for v in t.tolist())))
        ncore_comms = [us["ncore"]] + [us[f"ncore_comm{i}"] for i in range(1, len(comms))]
        torch_comms = [us["torch"]] + [us[f"torch_comm{i}"] for i in range(1, len(groups))]
        row = {"bytes": size, "ncore_us": round(us["ncore"], 2), "torch_us": round(us["torch"], 2),
               "torch_again_us": round(us["torch_again"], 2),
               # torch_comms_us[1] under the name runs before session 17 used.
               "torch_other_group_us": round(torch_comms[1], 2),
               "ncore_comms_us": [round(v, 2) for v in ncore_comms],
               "torch_comms_us": [round(v, 2) for v in torch_comms],
               "ncore_enqueue_us": round(us["ncore_enqueue"], 2),
               "torch_enqueue_us": round(us["torch_enqueue"], 2),
               "torch_over_ncore": round(us["torch"] / us["ncore"], 3),
               "torch_over_ncore_comms": round(
                   statistics.mean(torch_comms) / statistics.mean(ncore_comms), 3)}
        results.append(row)
        if rank == 0:
            print(json.dumps(row), flush=True)
    out = {"bench": "allreduce_vs_torch", "nranks": nranks, "dtype": "float32",
           "gpu": torch.cuda.get_device_name(device), "torch": torch.__version__,
           "nccl": ".".join(map(str, torch.cuda.nccl.version())), "sizes": results}
    if rank == 0:
        print(json.dumps(out), flush=True)
        if args.json:
            with open(args.json, "w", encoding="utf-8") as f:
                json.dump(out, f, indent=1)
    dist.destroy_process_group()
    for c in comms[:0:-1]:
        c.destroy()
    comm.destroy()
    return 0


if __name__ == "__main__":
    sys.exit(main())
