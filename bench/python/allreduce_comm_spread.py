#!/usr/bin/env python3
"""Is ncore's Python allreduce behind torch.distributed's
at a size where both run NCCL's kernel back to back because of the memory,
the moment its communicator was made, or the communicator itself? One rank
per GPU, under ncore-run:

    SIZES="33554432 16777216 67108864" ROUNDS=25 build/bin/ncore-run -n 4 -- \
        env PYTHONPATH=$PWD/bindings/python python3 bench/python/allreduce_comm_spread.py

Eight sides, timed in rotation at each size (SIZES, bytes; ROUNDS rounds of
200 calls from 32 MiB, 1000 below, 40 above 64 MiB; in place unless named):
ncore on the communicator made before torch's (ncoreA) and on one made
after torch's two process groups, from a unique id of its own (ncoreB);
each on a torch tensor (_x) and on ncore.mem_alloc memory (_y); ncoreA
out of place (_oop); torch's default group on both memories and twice
(torch_x_again), and its second group (torchother_x, an ncclCommSplit).
SPLITS=K adds K more ncore communicators split from ncoreA (ncoreS1_x ..)
and K more torch process groups (torchG1_x ..), made alternately: how far
communicators of one library and one config differ at a size, and each
library's mean over all its communicators on torch memory in place
("ncore comms" / "torch comms": [fastest, mean, slowest] of their minima).
Rank 0 prints, per side, [min, median] microseconds per call over the
rounds (the slowest rank's), and the NCCL_* / other environment variables
torch's init changed in the C environment (torch sets them with setenv,
which os.environ does not see). Set NCCL_DEBUG=INFO
NCCL_DEBUG_SUBSYS=INIT,ENV to compare the communicators' channels and rings.
"""
import ctypes
import json
import os
import statistics

import torch
import torch.distributed as dist

import ncore
from allreduce_vs_torch import rotated, timed  # this script's folder: its sys.path[0]


def c_environ():
    """The process's C environment (what setenv changed included)."""
    libc = ctypes.CDLL(None)
    env = ctypes.POINTER(ctypes.c_char_p).in_dll(libc, "environ")
    out, i = {}, 0
    while env[i]:
        k, _, v = env[i].decode(errors="replace").partition("=")
        out[k] = v
        i += 1
    return out


rank, n = int(os.environ["NCORE_RANK"]), int(os.environ["NCORE_NRANKS"])
a = ncore.Communicator.from_env()
dev = a.device.device_id
torch.cuda.set_device(dev)
before = c_environ()
store = f"file:///tmp/ncore-comm-spread-store-{os.environ['NCORE_UNIQUE_ID'][:16]}"
dist.init_process_group("nccl", init_method=store, rank=rank, world_size=n,
                        device_id=torch.device("cuda", dev))
other = dist.new_group(list(range(n)))
after = c_environ()
changed = {k: (before.get(k), v) for k, v in after.items() if before.get(k) != v}
changed.update({k: (v, None) for k, v in before.items() if k not in after})
# A fresh ncore communicator created after torch's (not a split).
uid = [ncore.get_unique_id() if rank == 0 else None]
dist.broadcast_object_list(uid, src=0)
b = ncore.Communicator.init(n, rank, uid[0])
splits, groups = [], []
for _ in range(int(os.environ.get("SPLITS", "0"))):
    splits.append(a.split(0, rank))
    groups.append(dist.new_group(list(range(n))))
    dist.all_reduce(torch.zeros(1, device="cuda"), group=groups[-1])  # creates it now
if rank == 0:
    print("env changed by torch init:", json.dumps(changed), flush=True)
rounds = int(os.environ.get("ROUNDS", "25"))
for size in [int(s) for s in os.environ.get("SIZES", "33554432 8388608 134217728").split()]:
    count = size // 4
    x = torch.ones(count, dtype=torch.float32, device="cuda")
    mem = ncore.mem_alloc(size)
    y = torch.as_tensor(mem, device="cuda").view(torch.float32)[:count]
    y.fill_(1.0)
    xc = torch.empty(count + 1024, dtype=torch.float32, device="cuda")
    iters = 1000 if size <= (16 << 20) else 200 if size <= (64 << 20) else 40
    sides = [
        ("ncoreA_x", lambda: a.allreduce(x, x, ncore.SUM)),
        ("ncoreA_y", lambda: a.allreduce(y, y, ncore.SUM)),
        ("ncoreB_x", lambda: b.allreduce(x, x, ncore.SUM)),
        ("torch_x", lambda: dist.all_reduce(x)),
        ("torch_y", lambda: dist.all_reduce(y)),
        ("torchother_x", lambda: dist.all_reduce(x, group=other)),
        ("ncoreA_x_oop", lambda: a.allreduce(x, xc[:count], ncore.SUM)),
        ("torch_x_again", lambda: dist.all_reduce(x)),
    ] + [(f"ncoreS{i + 1}_x", lambda c=c: c.allreduce(x, x, ncore.SUM))
         for i, c in enumerate(splits)] + [
        (f"torchG{i + 1}_x", lambda g=g: dist.all_reduce(x, group=g))
        for i, g in enumerate(groups)]
    for _, c in sides:
        timed(c, iters // 10)
    res = {name: [t for t, _ in times] for name, times in rotated(sides, iters, rounds).items()}
    vals = []
    for name, _ in sides:
        vals += [min(res[name]), statistics.median(res[name])]
    t = torch.tensor(vals, dtype=torch.float64, device="cuda")
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    torch.cuda.synchronize()
    v = [x_ * 1e6 for x_ in t.tolist()]
    # Per side, its [min, median] microseconds (vals' order).
    us = {name: v[2 * i:2 * i + 2] for i, (name, _) in enumerate(sides)}
    if rank == 0:
        row = {"bytes": size, "iters": iters, "rounds": rounds}
        row.update({name: [round(u, 2) for u in pair] for name, pair in us.items()})
        row["torch/ncoreA_x min"] = round(us["torch_x"][0] / us["ncoreA_x"][0], 4)
        row["torch/ncoreB_x min"] = round(us["torch_x"][0] / us["ncoreB_x"][0], 4)
        row["torch/ncoreA_y min"] = round(us["torch_y"][0] / us["ncoreA_y"][0], 4)
        for lib, prefixes in (("ncore", ("ncoreA_x", "ncoreB_x", "ncoreS")),
                              ("torch", ("torch_x", "torchother_x", "torchG"))):
            mins = [pair[0] for name, pair in us.items()
                    if name.startswith(prefixes) and name.endswith("_x")]
            row[f"{lib} comms"] = [round(min(mins), 2), round(statistics.mean(mins), 2),
                                   round(max(mins), 2)]
        row["torch/ncore comms' means"] = round(row["torch comms"][1] / row["ncore comms"][1], 4)
        print(json.dumps(row), flush=True)
    del mem
dist.destroy_process_group()
for c in splits:
    c.destroy()
a.destroy()
b.destroy()
