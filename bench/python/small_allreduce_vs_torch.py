#!/usr/bin/env python3
"""Small allreduce from Python, eager and replayed from a CUDA graph, one
rank per GPU, the same processes and run:

    python3 -m ncore.run -n 4 bench/python/small_allreduce_vs_torch.py [--json FILE]

Sides (float32, sum): ncore on torch tensors (its small-message path where
it takes the call), ncore forced to NCCL's kernels (a communicator made
with NCORE_ALGO=nccl), torch.distributed (NCCL), torch's symmetric-memory
one-shot and two-shot kernels (torch.ops.symm_mem), and torch.distributed a
second time (the control). Per size: eager, --iters calls then
torch.cuda.synchronize(); graph, --graph-calls calls captured in one
torch.cuda.graph, replayed --replays times. The sides take turns going
first; best of --rounds; the slowest rank's time per call. Every side's
result is checked first. A side that cannot run a size (torch's two-shot
wants a count divisible by the ranks, and its symmetric buffer bounds the
size) is left out of that size, and says why once.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import torch
import torch.distributed as dist

import ncore


# The stream ncore's calls go to: torch's current one, read once where a
# timed loop or a capture begins (reading it in every call costs ~5 us,
# which would time torch's accessor, not the call: session 20, call 3).
_current = {"stream": 0}


def use_current_stream() -> None:
    _current["stream"] = torch.cuda.current_stream().cuda_stream


def timed_eager(call, iters: int) -> float:
    torch.cuda.synchronize()
    use_current_stream()
    start = time.perf_counter()
    for _ in range(iters):
        call()
    torch.cuda.synchronize()
    return (time.perf_counter() - start) / iters


def timed_graph(call, per_graph: int, replays: int) -> float:
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        use_current_stream()
        call()  # warm, outside the capture
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        use_current_stream()  # the capturing stream
        for _ in range(per_graph):
            call()
    graph.replay()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(replays):
        graph.replay()
    torch.cuda.synchronize()
    return (time.perf_counter() - start) / (per_graph * replays)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--max", type=int, default=64 << 20)
    parser.add_argument("--sizes", help="bytes, comma-separated (each at "
                        "most --max): instead of 8 B x 4^k up to --max")
    parser.add_argument("--iters", type=int, default=500)
    parser.add_argument("--graph-calls", type=int, default=20)
    parser.add_argument("--replays", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json")
    args = parser.parse_args()
    try:
        sizes = ([int(v) for v in args.sizes.split(",")] if args.sizes else
                 [8 << (2 * k) for k in range(12) if (8 << (2 * k)) <= args.max])
    except ValueError:
        parser.error(f"--sizes {args.sizes!r}: bytes as integers, comma-separated")
    if any(size <= 0 or size > args.max for size in sizes):
        parser.error(f"--sizes {args.sizes!r}: each size from 1 to --max ({args.max})")
    rank, nranks = int(os.environ["NCORE_RANK"]), int(os.environ["NCORE_NRANKS"])
    comm = ncore.Communicator.from_env()
    device = comm.device.device_id
    torch.cuda.set_device(device)
    # NCORE_ALGO is read when a communicator is set up: a split made with
    # it set runs every call on NCCL's kernels.
    os.environ["NCORE_ALGO"] = "nccl"
    forced = comm.split(0, rank)
    os.environ.pop("NCORE_ALGO")
    store_dir = os.environ.get("BENCH_STORE_DIR", "/tmp")
    store = f"file://{store_dir}/ncore-small-torch-store-{os.environ['NCORE_UNIQUE_ID'][:16]}"
    dist.init_process_group("nccl", init_method=store, rank=rank, world_size=nranks,
                            device_id=torch.device("cuda", device))
    group_name = dist.group.WORLD.group_name
    symm = None
    try:
        import torch.distributed._symmetric_memory as symm_mem
        symm = symm_mem.empty(args.max // 4, device="cuda", dtype=torch.float32)
        symm_mem.rendezvous(symm, group_name)
    except Exception as e:  # torch without symmetric memory: say so, go on
        if rank == 0:
            print(f"# torch symmetric memory unavailable: {e}", flush=True)
        symm = None
    said = set()
    rows = []
    for size in sizes:
        count = max(1, size // 4)
        x = torch.empty(count, dtype=torch.float32, device="cuda")
        want = float(nranks * (nranks + 1) // 2)

        def fresh():
            x.fill_(rank + 1)

        # ncore on torch's current stream (use_current_stream), as torch's
        # own calls: inside torch.cuda.graph that is the capturing stream (nccl.core's default,
        # stream=None, is the legacy default stream, which a capture on
        # torch's non-blocking side stream does not see: the call would run
        # eagerly and the graph stay empty).
        sides = {
            "ncore": lambda: comm.allreduce(x, x, ncore.SUM, stream=_current["stream"]),
            "ncore_nccl": lambda: forced.allreduce(x, x, ncore.SUM,
                                                   stream=_current["stream"]),
            "torch": lambda: dist.all_reduce(x),
            "torch_again": lambda: dist.all_reduce(x),
        }
        if symm is not None:
            s = symm[:count]
            sides["torch_symm_oneshot"] = lambda: torch.ops.symm_mem.one_shot_all_reduce(
                s, "sum", group_name)
            sides["torch_symm_twoshot"] = lambda: torch.ops.symm_mem.two_shot_all_reduce_(
                s, "sum", group_name)
        checked = {}
        for name, call in list(sides.items()):
            try:
                if name.startswith("torch_symm"):
                    s.fill_(rank + 1)
                    out = call()
                    got = (out if name.endswith("oneshot") else s)
                else:
                    fresh()
                    use_current_stream()
                    call()
                    got = x
                torch.cuda.synchronize()
                if not torch.all(got == want):
                    raise RuntimeError(f"wrong result {got[:4].tolist()}, want {want}")
                checked[name] = call
            except Exception as e:  # a side that cannot run this size
                if (name, type(e).__name__) not in said and rank == 0:
                    print(f"# {name} left out from {size} B: {e}", flush=True)
                said.add((name, type(e).__name__))
        names = list(checked)
        best = {f"{m}_{n}": float("inf") for m in ("eager", "graph") for n in names}
        for r in range(args.rounds):
            for k in range(len(names)):
                name = names[(r + k) % len(names)]
                call = checked[name]
                best[f"eager_{name}"] = min(best[f"eager_{name}"], timed_eager(call, args.iters))
                best[f"graph_{name}"] = min(best[f"graph_{name}"],
                                            timed_graph(call, args.graph_calls, args.replays))
        keys = sorted(best)
        t = torch.tensor([best[k] for k in keys], dtype=torch.float64, device="cuda")
        comm.allreduce(t, t, ncore.MAX)
        torch.cuda.synchronize()
        row = {"bytes": size}
        row.update({f"{k}_us": round(v * 1e6, 3) for k, v in zip(keys, t.tolist())})
        rows.append(row)
        if rank == 0:
            print(json.dumps(row), flush=True)
    out = {"bench": "small_allreduce_vs_torch", "nranks": nranks, "dtype": "float32",
           "gpu": torch.cuda.get_device_name(device), "torch": torch.__version__,
           "nccl": ".".join(map(str, torch.cuda.nccl.version())), "sizes": rows}
    if rank == 0 and args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=1)
    dist.destroy_process_group()
    forced.destroy()
    comm.destroy()
    return 0


if __name__ == "__main__":
    sys.exit(main())
