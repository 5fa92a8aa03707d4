#!/usr/bin/env python3
"""Renders the GPU benchmarks' JSON (bench/gpu/run-all.sh's OUT folder) as
markdown tables (stdout) and PNG plots (python3-matplotlib):

    python3 bench/gpu/plot.py OUT [--into bench/results]

Reads what is there of gpu-percall-1rank.json, gpu-callcount.json,
gpu-oversubscribed-2ranks-check.json, gpu-sweep-*.json, python-gpu.json,
rust-gpu.json, go-gpu.json, gpu-onesided-2ranks-<wait mode or variant>.json,
python-allreduce-vs-torch-*.json and machine.txt; writes gpu-percall.png,
gpu-onesided-2ranks-latency.png and -bandwidth.png, one
python-allreduce-vs-torch-<N>ranks.png per torch comparison,
gpu-bindings.png and, per sweep, gpu-sweep-<N>ranks-latency.png (a panel
per operation), -added.png (what ncore adds, a line per operation) and,
for several ranks, -busbw.png, into --into (default: bench/results), and
copies the JSON there too so the figures stay beside their data. Every figure is a difference or a ratio
against a baseline measured in the same run; the goals are docs/performance.md's.
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
from report import human  # noqa: E402  (the host report's helper)

# The per-call goals (docs/performance.md): added µs per call over the baseline named.
GOAL_C_US = 0.1            # ncore's C call over raw NCCL
GOAL_US = {"python": 1.0, "rust": 0.05, "go": 0.2}  # binding over the C call
GOAL_PY_OVER_CUPY_US = 1.0  # Python package over cupy.cuda.nccl


# One colour per side in every figure, and a palette for one line per
# operation that stays apart for colour-blind readers (Okabe and Ito).
RAW_COLOUR, NCORE_COLOUR = "#7f7f7f", "#0072B2"
OP_COLOURS = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00",
              "#F0E442", "#000000"]
OP_MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]


def nccl_text(version) -> str:
    """NCCL's version as people write it: 22809 (NCCL_VERSION_CODE) -> "2.28.9"."""
    if isinstance(version, str):
        return version
    code = int(version)
    if code >= 10000:
        return f"{code // 10000}.{code % 10000 // 100}.{code % 100}"
    return f"{code // 1000}.{code % 1000 // 100}.{code % 100}"


def ranks_text(n: int) -> str:
    return f"{n} rank" if n == 1 else f"{n} ranks"


def load(folder: str, name: str):
    path = os.path.join(folder, name)
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def met(added: float, goal: float) -> str:
    return "yes" if added <= goal else "**no**"


def percall_table(r: dict) -> str:
    lines = [f"NCCL {nccl_text(r['nccl_version'])}, {ranks_text(r['nranks'])}, {r['calls']} calls per "
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


def control_column(rows: list, again: str, base: str, title: str, prefix: str = ""):
    """The control column of a table, (head, rule, cell of a row): the
    baseline timed a second time in the same rotation (since session 13),
    or on a second communicator of the same config (since session 15),
    over its first time: the spread a ratio must exceed to mean anything;
    None for a run that predates it."""
    if not all(again in row for row in rows):
        return None
    return (f" {title} |", " ---: |", lambda row: f" {prefix}{row[again] / row[base]:.3f} |")


def enqueue_columns(rows: list, sides: list):
    """Columns of each side's time per call until its last call returned
    (`<side>_enqueue_us`, since session 13: near the time per call, the
    host paces the calls); None for a run that predates them."""
    keys = [f"{side}_enqueue_us" for side in sides]
    if not all(key in row for row in rows for key in keys):
        return None
    return ("".join(f" {side} enqueue µs |" for side in sides), " ---: |" * len(sides),
            lambda row: "".join(f" {row[key]:.2f} |" for key in keys))


def outside_nccl_columns(rows: list):
    """Columns of each side's enqueue time per call outside NCCL's calls
    (`<side>_enqueue_us` less `<side>_in_nccl_us`, a run under calltime.so
    since session 14): the bench's loop on the raw side, that and ncore's
    own path on ncore's; None for a run without them."""
    sides = ["raw", "ncore"]
    if not all(f"{side}_in_nccl_us" in row for row in rows for side in sides):
        return None
    return (" raw outside NCCL µs | ncore outside NCCL µs |", " ---: |" * 2,
            lambda row: "".join(f" {row[f'{side}_enqueue_us'] - row[f'{side}_in_nccl_us']:.3f} |"
                                for side in sides))


def markdown_rows(head: str, rule: str, rows: list, cells, extras: list) -> list:
    """A markdown table's lines: cells(row) per row, then each optional
    column group of extras that the run has (None: it has not)."""
    extras = [extra for extra in extras if extra]
    return ([head + "".join(e[0] for e in extras), rule + "".join(e[1] for e in extras)]
            + [cells(row) + "".join(e[2](row) for e in extras) for row in rows])


def sweep_table(r: dict) -> str:
    lines = [f"NCCL {nccl_text(r['nccl_version'])}, {ranks_text(r['nranks'])}, best of {r['rounds']}; "
             f"results checked: {r.get('checked')}", ""]
    lines += markdown_rows(
        "| call | bytes | raw µs | ncore µs | raw busbw GB/s | ncore busbw GB/s | ratio |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |", r["results"],
        lambda x: (f"| {x['op']} | {human(x['bytes'])} | {x['raw_us']:.2f} | "
                   f"{x['ncore_us']:.2f} | {x['raw_busbw_GBs']:.2f} | "
                   f"{x['ncore_busbw_GBs']:.2f} | ×{x['ncore_us'] / x['raw_us']:.3f} |"),
        [control_column(r["results"], "raw_again_us", "raw_us", "raw again / raw", "×"),
         control_column(r["results"], "raw_other_comm_us", "raw_us",
                        "raw, 2nd comm / raw", "×"),
         enqueue_columns(r["results"], ["raw", "ncore"]),
         outside_nccl_columns(r["results"])])
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
               label="raw NCCL", color=RAW_COLOUR)
        ax.bar([i + 0.2 for i in xs], [x["ncore_us"] for x in percall["results"]], 0.4,
               label="ncore", color=NCORE_COLOUR)
        for i, x in enumerate(percall["results"]):
            ax.annotate(f"{x['added_us']:+.2f}", (i + 0.2, x["ncore_us"]), ha="center",
                        va="bottom", fontsize=8)
        ax.set_xticks(list(xs), ops, rotation=20)
        ax.set_ylabel("µs per call (8 B; lower is better)")
        ax.set_title(f"ncore vs raw NCCL {nccl_text(percall['nccl_version'])}, "
                     f"{ranks_text(percall['nranks'])}: µs per call (labels: ncore adds)")
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
        sweep_plots(plt, os.path.join(into, name), r)


def by_op(r: dict, key: str) -> dict:
    """operation -> ([bytes], [value]) of one measure, sizes ascending; a
    measure of 0 (not measured) is left out."""
    series: dict = {}
    for x in sorted(r["results"], key=lambda x: x["bytes"]):
        value = key(x) if callable(key) else x[key]
        if value is not None and (callable(key) or value > 0):
            xs, ys = series.setdefault(x["op"], ([], []))
            xs.append(x["bytes"])
            ys.append(value)
    return series


def sweep_plots(plt, base: str, r: dict) -> None:
    """One figure per question a sweep answers (the 14 lines of
    one plot were unreadable):
      BASE-latency.png  how long does each call take, with and without
                        ncore? one panel per operation, the two sides in
                        the same two colours everywhere;
      BASE-added.png    what does ncore add to a call, by size? one line
                        per operation;
      BASE-busbw.png    does ncore keep NCCL's bandwidth? panels as for
                        latency; only for several ranks (nccl-tests' bus
                        bandwidth of one rank is 0 or the algorithm's)."""
    about = f"ncore vs raw NCCL {nccl_text(r['nccl_version'])}, {ranks_text(r['nranks'])}"
    panels(plt, r, "us", "µs per call (lower is better)",
           f"Time per call by message size: {about}", base + "-latency.png")
    # What ncore adds, per operation over all sizes: the median (dot), the
    # middle half (thick) and the range (thin); one round per size is noisy,
    # so a line per operation across sizes would mostly show the noise.
    added = sorted(by_op(r, lambda x: x["ncore_us"] - x["raw_us"]).items(), reverse=True)
    colours = [NCORE_COLOUR] * len(added)
    # The controls below the operations, every operation's sizes together:
    # raw against itself, and raw on a second communicator against raw.
    for key, label in (("raw_again_us", "raw again (control)"),
                       ("raw_other_comm_us", "raw, 2nd comm (control)")):
        if all(key in x for x in r["results"]):
            spread = [x[key] - x["raw_us"] for x in r["results"]]
            added.insert(0, (label, ([], spread)))
            colours.insert(0, RAW_COLOUR)
    fig, ax = plt.subplots(figsize=(9, 0.45 * len(added) + 1.6))
    for i, (op, (sizes, ys)) in enumerate(added):
        q = quantiles(ys)
        colour = colours[i]
        ax.plot([q[0], q[4]], [i, i], color=colour, linewidth=1)
        ax.plot([q[1], q[3]], [i, i], color=colour, linewidth=5, solid_capstyle="butt")
        ax.plot([q[2]], [i], "o", color="white", markeredgecolor=colour, markersize=7)
        ax.annotate(f"{q[2]:+.2f}", (q[4], i), xytext=(6, 0), textcoords="offset points",
                    va="center", fontsize=8)
    ax.axvline(0, color="black", linewidth=0.8)
    low, high = ax.get_xlim()
    ax.set_xlim(low, high + 0.12 * (high - low))  # room for the median's label
    ax.set_yticks(range(len(added)), [op for op, _ in added])
    sizes = sorted({x["bytes"] for x in r["results"]})
    ax.set_xlabel(f"ncore − raw NCCL, µs per call: median (dot), middle half, range over "
                  f"{len(sizes)} sizes, {human(sizes[0])} to {human(sizes[-1])}")
    rounds = r["rounds"]
    ax.set_title(f"What ncore adds to a call: {about} "
                 f"({'one round' if rounds == 1 else f'best of {rounds} rounds'} per size)")
    ax.grid(True, axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(base + "-added.png", dpi=100)
    plt.close(fig)
    if r["nranks"] > 1:
        panels(plt, r, "busbw_GBs", "bus bandwidth GB/s (nccl-tests' definition)",
               f"Bus bandwidth by message size: {about}", base + "-busbw.png")
    elif os.path.exists(base + "-busbw.png"):
        os.remove(base + "-busbw.png")  # an older plot.py drew it for one rank


def quantiles(values: list) -> list:
    """min, 25 %, median, 75 %, max (linear interpolation)."""
    v = sorted(values)

    def at(f: float) -> float:
        k = (len(v) - 1) * f
        lo = int(k)
        hi = min(lo + 1, len(v) - 1)
        return v[lo] + (v[hi] - v[lo]) * (k - lo)
    return [at(f) for f in (0, 0.25, 0.5, 0.75, 1)]


def panels(plt, r: dict, measure: str, ylabel: str, title: str, path: str) -> None:
    """Small multiples: one panel per operation, raw NCCL and ncore in it,
    shared axes (log-log), one legend."""
    raw, ours = by_op(r, f"raw_{measure}"), by_op(r, f"ncore_{measure}")
    ops = sorted(set(raw) | set(ours))
    if not ops:
        return
    columns = min(4, len(ops))
    rows = (len(ops) + columns - 1) // columns
    fig, axes = plt.subplots(rows, columns, figsize=(3.2 * columns, 2.6 * rows + 0.8),
                             sharex=True, sharey=True, squeeze=False)
    for ax, op in zip(axes.flat, ops):
        for side, series, colour in (("raw NCCL", raw, RAW_COLOUR), ("ncore", ours, NCORE_COLOUR)):
            if op in series:
                ax.plot(*series[op], marker="o", markersize=3, color=colour, label=side)
        ax.set_title(op, fontsize=10)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.grid(True, which="both", alpha=0.3)
    handles, labels = axes.flat[0].get_legend_handles_labels()
    empty = list(axes.flat)[len(ops):]
    for ax in empty:
        ax.set_visible(False)
        # The panel above an empty one is the bottom of its column.
        above = axes.flat[list(axes.flat).index(ax) - columns]
        above.xaxis.set_tick_params(labelbottom=True)
    if empty:
        empty[0].legend(handles, labels, loc="center", frameon=False)
        empty[0].set_visible(True)
        empty[0].axis("off")
    else:
        fig.legend(handles, labels, loc="upper right", ncol=2, frameon=False)
    fig.supxlabel("message size (bytes)")
    fig.supylabel(ylabel)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def onesided_table(runs: list) -> str:
    """put_signal latency per wait mode against NCCL send/recv in the same
    run, and the default mode's bandwidth against NCCL and the copy engine."""
    lines = ["| run | put_signal one way µs | NCCL send/recv µs | ratio | "
             "host-synchronised put / NCCL µs | compute beside a pending wait |",
             "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for mode, r in runs:
        lat = r["latency_us"]
        pending = r.get("pending_wait")
        lines.append(f"| {mode} | {lat['put_signal']:.2f} | {lat['nccl_sendrecv']:.2f} | "
                     f"{lat['put_signal'] / lat['nccl_sendrecv']:.2f} | "
                     f"{lat['put_signal_host_sync']:.2f} / {lat['nccl_sendrecv_host_sync']:.2f} | "
                     + (f"{pending['ratio']:.3f} × |" if pending else "- |"))
    full = max(runs, key=lambda mr: len(mr[1]["bandwidth_GBps"]))[1]
    if len(full["bandwidth_GBps"]) > 1:
        lines += ["", "| bytes | put_signal GB/s | NCCL send/recv GB/s | cudaMemcpyPeerAsync GB/s | "
                  "put / NCCL | put / memcpy |", "| ---: | ---: | ---: | ---: | ---: | ---: |"]
        for b in full["bandwidth_GBps"]:
            peer = b["memcpy_peer"]
            lines.append(f"| {human(b['bytes'])} | {b['put_signal']:.1f} | {b['nccl_sendrecv']:.1f} | "
                         f"{peer if peer is None else f'{peer:.1f}'} | "
                         f"{b['put_signal'] / max(b['nccl_sendrecv'], 1e-9):.2f} | "
                         + (f"{b['put_signal'] / peer:.2f} |" if peer else "- |"))
    return "\n".join(lines)


def finish(plt, fig, ax, xlabel: str, ylabel: str, title: str, legend: str,
           path: str) -> None:
    """Labels, legend (where given) and the PNG of a one-panel figure."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if legend:
        ax.legend(loc=legend, fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def onesided_plots(plt, into: str, runs: list) -> None:
    """gpu-onesided-2ranks-latency.png (one bar pair per wait mode or variant) and
    -bandwidth.png (the default mode against NCCL and the copy engine)."""
    fig, ax = plt.subplots(figsize=(6.5, 3.6))
    for i, (mode, r) in enumerate(runs):
        lat = r["latency_us"]
        ax.bar(i - 0.2, lat["put_signal"], 0.4, color=NCORE_COLOUR,
               label="put_signal -> wait_signal" if i == 0 else None)
        ax.bar(i + 0.2, lat["nccl_sendrecv"], 0.4, color=RAW_COLOUR,
               label="raw NCCL send/recv (same run)" if i == 0 else None)
    ax.set_xticks(range(len(runs)), [m for m, _ in runs])
    finish(plt, fig, ax, "run (NCORE_NCCL_WAIT mode or variant)", "one-way latency, 8 B (µs)",
           "put_signal latency, 2 GPUs (NV18)", "upper right",
           os.path.join(into, "gpu-onesided-2ranks-latency.png"))
    full = max(runs, key=lambda mr: len(mr[1]["bandwidth_GBps"]))[1]["bandwidth_GBps"]
    if len(full) < 2:
        return
    fig, ax = plt.subplots(figsize=(6.5, 3.8))
    x = [b["bytes"] for b in full]
    ax.plot(x, [b["put_signal"] for b in full], "o-", color=NCORE_COLOUR, label="put_signal")
    ax.plot(x, [b["nccl_sendrecv"] for b in full], "s-", color=RAW_COLOUR, label="raw NCCL send/recv")
    if all(b["memcpy_peer"] for b in full):
        ax.plot(x, [b["memcpy_peer"] for b in full], "^--", color=OP_COLOURS[1],
                label="cudaMemcpyPeerAsync")
    ax.set_xscale("log", base=2)
    finish(plt, fig, ax, "bytes per message", "GB/s", "put_signal bandwidth, 2 GPUs (NV18)",
           "upper left", os.path.join(into, "gpu-onesided-2ranks-bandwidth.png"))


def torch_table(r: dict) -> str:
    return "\n".join(markdown_rows(
        "| bytes | ncore µs | torch.distributed µs | torch / ncore |",
        "| ---: | ---: | ---: | ---: |", r["sizes"],
        lambda row: (f"| {human(row['bytes'])} | {row['ncore_us']:.2f} | {row['torch_us']:.2f} | "
                     f"{row['torch_over_ncore']:.3f} |"),
        [control_column(r["sizes"], "torch_again_us", "torch_us", "torch again / torch"),
         control_column(r["sizes"], "torch_other_group_us", "torch_us",
                        "torch, 2nd group / torch"),
         communicator_columns(r["sizes"]),
         enqueue_columns(r["sizes"], ["ncore", "torch"])]))


def communicator_columns(rows: list):
    """Each library over several communicators of its own (since session
    17: one communicator can be 2 % faster than another of the same
    config): torch / ncore of their means, and each library's slowest over
    its fastest communicator; None for a run that predates them."""
    if not all("torch_over_ncore_comms" in row for row in rows):
        return None
    count = len(rows[0]["ncore_comms_us"])
    return (f" torch / ncore, means of {count} comms each | ncore comms, slowest / fastest |"
            " torch comms, slowest / fastest |", " ---: | ---: | ---: |",
            lambda row: (f" {row['torch_over_ncore_comms']:.3f} |"
                         f" {max(row['ncore_comms_us']) / min(row['ncore_comms_us']):.3f} |"
                         f" {max(row['torch_comms_us']) / min(row['torch_comms_us']):.3f} |"))


def torch_plot(plt, path: str, r: dict) -> None:
    fig, ax = plt.subplots(figsize=(6.5, 3.6))
    x = [row["bytes"] for row in r["sizes"]]
    ax.plot(x, [row["torch_over_ncore"] for row in r["sizes"]], "o-", color=NCORE_COLOUR,
            label="torch.distributed / ncore")
    if all("torch_over_ncore_comms" in row for row in r["sizes"]):
        ax.plot(x, [row["torch_over_ncore_comms"] for row in r["sizes"]], "s--",
                color=OP_COLOURS[2],
                label=f"the same, means over {len(r['sizes'][0]['ncore_comms_us'])} "
                      "communicators each")
    # The controls the run has, each over torch's first timing.
    control = False
    for key, style, colour, label in (
            ("torch_again_us", "x:", RAW_COLOUR, "torch.distributed again / itself (control)"),
            ("torch_other_group_us", "+:", OP_COLOURS[1],
             "torch.distributed, 2nd group / 1st (control)")):
        if all(key in row for row in r["sizes"]):
            ax.plot(x, [row[key] / row["torch_us"] for row in r["sizes"]], style,
                    color=colour, label=label)
            control = True
    ax.axhline(1.0, color=RAW_COLOUR, linestyle="--", linewidth=1)
    ax.set_xscale("log", base=2)
    finish(plt, fig, ax, "bytes (float32)",
           "time ratio" if control else "torch.distributed time / ncore time",
           f"Python allreduce, {ranks_text(r['nranks'])}: >= 1 is ncore as fast or faster",
           "center right" if control else "", path)


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
    # One run per wait mode or variant (gpu-onesided-2ranks-<name>.json),
    # the default first.
    onesided = []
    prefix = "gpu-onesided-2ranks-"
    names = [os.path.basename(p)[len(prefix):-len(".json")]
             for p in glob.glob(os.path.join(args.folder, prefix + "*.json"))]
    for mode in sorted(names, key=lambda n: (n != "default", n)):
        onesided.append((mode, load(args.folder, f"{prefix}{mode}.json")))
    if onesided:
        print("### put_signal against NCCL send/recv and the copy engine\n\n"
              + onesided_table(onesided) + "\n")
    torches = []
    for path in sorted(glob.glob(os.path.join(args.folder, "python-allreduce-vs-torch-*.json"))):
        with open(path) as f:
            torches.append((os.path.splitext(os.path.basename(path))[0], json.load(f)))
    for name, r in torches:
        print(f"### {name}\n\n" + torch_table(r) + "\n")
    plots(args.into, percall, py, rust, go, sweeps)
    if onesided or torches:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        if onesided:
            onesided_plots(plt, args.into, onesided)
        for name, r in torches:
            torch_plot(plt, os.path.join(args.into, name + ".png"), r)
    if os.path.abspath(args.into) != os.path.abspath(args.folder):
        for path in glob.glob(os.path.join(args.folder, "*.json")):
            shutil.copy(path, args.into)
    return 0


if __name__ == "__main__":
    sys.exit(main())
