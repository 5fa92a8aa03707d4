#!/usr/bin/env python3
"""Plots bench/gpu/small_allreduce.cu's JSON lines (one object per size),
and optionally bench/python/small_allreduce_vs_torch.py's, as time per
call against size: a panel per file, eager and graph-replayed, ncore
against raw NCCL measured in the same run (python3-matplotlib):

    python3 bench/gpu/plot_small.py OUT.png FILE.json [FILE.json ...]
        [--torch RANKS=TORCH.json ...] [--max BYTES]

Each panel's title is its file's op, ranks and dtype; --torch adds
torch.distributed and torch's symmetric-memory kernels (graph-replayed)
to the panels of the same rank count and dtype."""

from __future__ import annotations

import argparse
import json

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def rows(path, max_bytes=None):
    """One object per size up to max_bytes: a file of JSON lines, or one
    JSON object with a "sizes" list (what small_allreduce_vs_torch.py
    --json writes now; its "dtype" is copied into each size)."""
    with open(path) as f:
        text = f.read()
    try:
        whole = json.loads(text)
    except json.JSONDecodeError:
        found = [json.loads(line) for line in text.splitlines() if line.strip().startswith("{")]
    else:
        if isinstance(whole, dict) and "sizes" in whole:
            found = [dict(size, dtype=whole.get("dtype", "float32")) for size in whole["sizes"]]
        else:
            found = [whole]
    return [d for d in found if max_bytes is None or d["bytes"] <= max_bytes]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("files", nargs="+")
    parser.add_argument("--torch", action="append", default=[])
    parser.add_argument("--max", type=int, default=None, help="largest size plotted (bytes)")
    args = parser.parse_args()
    torch = {}
    for spec in args.torch:
        ranks, _, path = spec.partition("=")
        torch[int(ranks)] = rows(path, args.max)
    fig, axes = plt.subplots(1, len(args.files), figsize=(6 * len(args.files), 4.5),
                             squeeze=False)
    for ax, path in zip(axes[0], args.files):
        data = rows(path, args.max)
        if not data:
            continue
        x = [d["bytes"] for d in data]
        for key, label, style in (("graph_raw_nccl_us", "raw NCCL, graph", "C0--"),
                                  ("graph_ncore_us", "ncore, graph", "C1-"),
                                  ("eager_raw_nccl_us", "raw NCCL, eager", "C0:"),
                                  ("eager_ncore_us", "ncore, eager", "C1:")):
            ax.plot(x, [d[key] for d in data], style, marker=".", label=label)
        t = torch.get(data[0]["ranks"]) if data[0].get("op", "allreduce") == "allreduce" else None
        if t and t[0].get("dtype", "float32") == data[0]["dtype"]:
            for key, label, style in (("graph_torch_us", "torch.distributed, graph", "C2-"),
                                      ("graph_torch_symm_twoshot_us", "torch symm-mem two-shot, graph", "C3-"),
                                      ("graph_torch_symm_oneshot_us", "torch symm-mem one-shot, graph", "C4-")):
                points = [(d["bytes"], d[key]) for d in t if key in d]
                if points:
                    ax.plot(*zip(*points), style, marker="x", label=label, alpha=0.8)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("bytes (each rank's block)")
        ax.set_ylabel("µs per call (slowest rank)")
        ax.set_title(f"{data[0].get('op', 'allreduce')}, {data[0]['ranks']} ranks, "
                     f"{data[0]['dtype']}")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
