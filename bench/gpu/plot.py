#!/usr/bin/env python3
"""Renders the GPU benchmarks' JSON (bench/gpu/run-all.sh's OUT folder) as
markdown tables (stdout) and PNG plots (python3-matplotlib):

    python3 bench/gpu/plot.py OUT [--into bench/results]

Reads what is there of gpu-percall-1rank.json, gpu-callcount.json,
gpu-oversubscribed-2ranks-check.json, gpu-sweep-*.json, python-gpu.json,
rust-gpu.json, go-gpu.json and machine.txt; writes gpu-percall.png,
gpu-bindings.png and, per sweep, gpu-sweep-<N>ranks-{busbw,latency}.png
into --into (default: bench/results), and copies the JSON there too so the
figures stay beside their data. Every figure is a difference or a ratio
against a baseline measured in the same run; the goals are issue 15's.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from report import human, log_plot  # noqa: E402  (the host report's helpers)

# Issue 15's goals: added µs per call over the baseline named.
GOAL_C_US = 0.1            # ncore's C call over raw NCCL
GOAL_US = {"python": 1.0, "rust": 0.05, "go": 0.2}  # binding over the C call
GOAL_PY_OVER_CUPY_US = 1.0  # Python package over cupy.cuda.nccl


def load(folder: str, name: str):
    path = os.path.join(folder, name)
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def met(added: float, goal: float) -> str:
    return "yes" if added <= goal else "**no**"


def percall_table(r: dict) -> str:
    lines = [f"NCCL {r['nccl_version']}, {r['nranks']} rank(s), {r['calls']} calls per "
             f"round, best of {r['rounds']}; results checked: {r.get('checked')}", "",
             "| call (8 B) | raw NCCL µs/call | ncore µs/call | ncore adds | ratio | "
             f"≤ {GOAL_C_US} µs? |", "| --- | ---: | ---: | ---: | ---: | --- |"]
    for x in r["results"]:
        lines.append(f"| {x['op']} | {x['raw_us']:.3f} | {x['ncore_us']:.3f} | "
                     f"{x['added_us']:+.3f} µs | ×{x['ratio']:.3f} | "
                     f"{met(x['added_us'], GOAL_C_US)} |")
    return "\n".join(lines)


def count_table(r: dict) -> str:
    lines = ["| call | raw NCCL: calls per operation | ncore: calls per operation |",
             "| --- | --- | --- |"]

    def text(calls: dict) -> str:
        return ", ".join(f"{name} {n:g}" for name, n in sorted(calls.items())) or "none"
    for x in r["results"]:
        lines.append(f"| {x['op']} | {text(x['raw'])} | {text(x['ncore'])} |")
    return "\n".join(lines)


def binding_rows(py, rust, go) -> list:
    """(binding, op, C µs, binding µs, added µs, goal µs)."""
    rows = []
    for name, r, key in (("rust", rust, "rust_us"), ("go", go, "go_us")):
        for x in (r or {}).get("results", []):
            rows.append((name, x["op"], x["c_us"], x[key], x["added_us"], GOAL_US[name]))
    if py:
        for x in py["results"]:
            c = py["c"][x["op"]]["ncore_us"]
            if x["variant"].startswith("ncore"):
                rows.append((f"python {x['variant'][6:] or 'raw'}", x["op"], c, x["us"],
                             x["added_over_c_us"], GOAL_US["python"]))
    return rows


def bindings_table(py, rust, go) -> str:
    lines = ["| binding | call (8 B) | C µs/call | binding µs/call | adds | goal | met? |",
             "| --- | --- | ---: | ---: | ---: | ---: | --- |"]
    for name, op, c, b, added, goal in binding_rows(py, rust, go):
        lines.append(f"| {name} | {op} | {c:.3f} | {b:.3f} | {added:+.3f} µs | ≤ {goal} µs | "
                     f"{met(added, goal)} |")
    if go and "cgo_crossing_us" in go:
        lines += ["", f"Go: one cgo crossing into an empty C function costs "
                  f"{go['cgo_crossing_us']:.3f} µs in the same run (the floor under any Go call)."]
    if py:
        lines += ["", f"Python {py['python']}, torch {py['torch']}, CuPy {py['cupy']}; "
                  "every Python variant in one process:", "",
                  "| call | variant | µs/call | over the C call | over cupy.cuda.nccl |",
                  "| --- | --- | ---: | ---: | ---: |"]
        for x in py["results"]:
            over = x.get("added_over_cupy_nccl_us")
            over_text = "—" if over is None else f"{over:+.3f} µs"
            if over is not None and x["variant"].startswith("ncore "):
                over_text += f" ({met(over, GOAL_PY_OVER_CUPY_US)})"
            lines.append(f"| {x['op']} | {x['variant']} | {x['us']:.3f} | "
                         f"{x['added_over_c_us']:+.3f} µs | {over_text} |")
        if py.get("pieces_us"):
            lines += ["", "What a package call spends per step, each timed alone:", "",
                      "| step | µs |", "| --- | ---: |"]
            lines += [f"| {name} | {us:.3f} |" for name, us in py["pieces_us"].items()]
    return "\n".join(lines)


def sweep_table(r: dict) -> str:
    lines = [f"NCCL {r['nccl_version']}, {r['nranks']} ranks, best of {r['rounds']}; "
             f"results checked: {r.get('checked')}", "",
             "| call | bytes | raw µs | ncore µs | raw busbw GB/s | ncore busbw GB/s | ratio |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for x in r["results"]:
        lines.append(f"| {x['op']} | {human(x['bytes'])} | {x['raw_us']:.2f} | "
                     f"{x['ncore_us']:.2f} | {x['raw_busbw_GBs']:.2f} | "
                     f"{x['ncore_busbw_GBs']:.2f} | ×{x['ncore_us'] / x['raw_us']:.3f} |")
    return "\n".join(lines)


def plots(into: str, percall, py, rust, go, sweeps) -> None:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot: matplotlib missing (apt-get install python3-matplotlib): no PNG",
              file=sys.stderr)
        return
    if percall:
        ops = [x["op"] for x in percall["results"]]
        fig, ax = plt.subplots(figsize=(8, 4.5))
        xs = range(len(ops))
        ax.bar([i - 0.2 for i in xs], [x["raw_us"] for x in percall["results"]], 0.4,
               label="raw NCCL")
        ax.bar([i + 0.2 for i in xs], [x["ncore_us"] for x in percall["results"]], 0.4,
               label="ncore")
        for i, x in enumerate(percall["results"]):
            ax.annotate(f"{x['added_us']:+.2f}", (i + 0.2, x["ncore_us"]), ha="center",
                        va="bottom", fontsize=8)
        ax.set_xticks(list(xs), ops, rotation=20)
        ax.set_ylabel("µs per call (8 B; lower is better)")
        ax.set_title(f"ncore vs raw NCCL {percall['nccl_version']}, 1 rank: µs per call "
                     "(labels: ncore adds)")
        ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(into, "gpu-percall.png"), dpi=100)
        plt.close(fig)
    rows = binding_rows(py, rust, go)
    if rows:
        fig, ax = plt.subplots(figsize=(9, 4.5))
        labels = [f"{b}\n{op}" for b, op, *_ in rows]
        ax.bar(range(len(rows)), [r[4] for r in rows], 0.6, label="adds over the C call")
        ax.scatter(range(len(rows)), [r[5] for r in rows], marker="_", s=400, color="red",
                   label="goal", zorder=3)
        ax.set_xticks(range(len(rows)), labels, fontsize=7)
        ax.set_ylabel("µs per call over C (lower is better)")
        ax.set_title("Bindings on the NCCL backend, device buffers, 1 rank")
        ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(into, "gpu-bindings.png"), dpi=100)
        plt.close(fig)
    for name, r in sweeps:
        # One figure per measure, every operation in it: rows by size, one
        # series per (side, operation).
        ops = sorted({x["op"] for x in r["results"]})
        by_size: dict = {}
        for x in r["results"]:
            row = by_size.setdefault(x["bytes"], {"bytes": x["bytes"]})
            for key in ("raw_us", "ncore_us", "raw_busbw_GBs", "ncore_busbw_GBs"):
                row[f"{key}:{x['op']}"] = x[key] if x[key] > 0 else None
        rows = [by_size[b] for b in sorted(by_size)]
        title = f"ncore vs raw NCCL {r['nccl_version']}, {r['nranks']} ranks"
        base = os.path.join(into, name)
        log_plot(plt, rows, [(f"{side}_busbw_GBs:{op}", f"{label} {op}") for op in ops
                             for side, label in (("raw", "raw NCCL"), ("ncore", "ncore"))],
                 "bytes", "bus bandwidth GB/s (nccl-tests' definition)", title,
                 base + "-busbw.png")
        log_plot(plt, rows, [(f"{side}_us:{op}", f"{label} {op}") for op in ops
                             for side, label in (("raw", "raw NCCL"), ("ncore", "ncore"))],
                 "bytes", "µs per call (lower is better)", title, base + "-latency.png")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder")
    parser.add_argument("--into", default=os.path.join(ROOT, "bench", "results"))
    args = parser.parse_args()
    os.makedirs(args.into, exist_ok=True)
    percall = load(args.folder, "gpu-percall-1rank.json")
    count = load(args.folder, "gpu-callcount.json")
    check = load(args.folder, "gpu-oversubscribed-2ranks-check.json")
    py = load(args.folder, "python-gpu.json")
    rust = load(args.folder, "rust-gpu.json")
    go = load(args.folder, "go-gpu.json")
    sweeps = []
    for path in sorted(glob.glob(os.path.join(args.folder, "gpu-sweep-*.json"))):
        with open(path) as f:
            sweeps.append((os.path.splitext(os.path.basename(path))[0], json.load(f)))
    machine = os.path.join(args.folder, "machine.txt")
    if os.path.exists(machine):
        print("Machine:\n\n    " + open(machine).read().strip().replace("\n", "\n    ") + "\n")
    for path in sorted(glob.glob(os.path.join(args.folder, "gpu-percall-1rank*.json"))):
        with open(path) as f:
            print(f"### Per-call cost against raw NCCL ({os.path.basename(path)})\n\n"
                  + percall_table(json.load(f)) + "\n")
    if count:
        print("### NCCL and driver calls per operation (callcount.so)\n\n"
              + count_table(count) + "\n")
    if check:
        print(f"2 ranks oversubscribed on one GPU (harness check, not figures): results "
              f"checked {check.get('checked')}\n")
    if py or rust or go:
        print("### Bindings against the C call\n\n" + bindings_table(py, rust, go) + "\n")
    for name, r in sweeps:
        print(f"### {name}\n\n" + sweep_table(r) + "\n")
    plots(args.into, percall, py, rust, go, sweeps)
    if os.path.abspath(args.into) != os.path.abspath(args.folder):
        for path in glob.glob(os.path.join(args.folder, "*.json")):
            shutil.copy(path, args.into)
    return 0


if __name__ == "__main__":
    sys.exit(main())
