#!/usr/bin/env python3
"""Turns a host benchmark's JSON (bench/host/p2p_bench.c) into a markdown
table and PNG plots.

    python3 bench/report.py bench/results/host-2ranks.json

writes host-2ranks.md, host-2ranks-bandwidth.png and host-2ranks-allreduce.png
beside it. Figures are ratios against the baselines measured in the same run
(memcpy, and Open MPI's shared-memory transport where the MPI build ran);
absolute numbers only mean something on the machine named in the file.
"""
import json
import os
import sys


def human(nbytes):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if nbytes < 1024 or unit == "GiB":
            return f"{nbytes:g} {unit}"
        nbytes /= 1024
    return f"{nbytes} B"


def num(v, fmt):
    return "—" if v is None else format(v, fmt)


def ratio(a, b):
    return None if a is None or not b else a / b


def table(r):
    mpi = r.get("mpi")
    lines = [f"Backend {r['backend']}, {r['nranks']} ranks, best of {r.get('rounds', '?')} "
             f"interleaved rounds; machine: {r.get('machine', 'unknown')}; date: "
             f"{r.get('date', '?')}; commit {r.get('commit', '?')}; "
             f"{r.get('mpi_version', 'no MPI baseline')}; load average before/after "
             f"{r.get('loadavg_before', '?')} / {r.get('loadavg_after', '?')}; "
             f"command: `{r.get('command', '?')}`",
             "",
             "| 8-byte ping-pong, one way | µs | ncore / MPI |",
             "| --- | ---: | ---: |",
             f"| ncore send/recv | {num(r['pingpong_us'], '.3f')} | "
             f"{num(ratio(r['pingpong_us'], r.get('mpi_pingpong_us')), '.2f')} |",
             f"| ncore put_signal → wait_signal | {num(r['put_signal_latency_us'], '.3f')} | "
             f"{num(ratio(r['put_signal_latency_us'], r.get('mpi_pingpong_us')), '.2f')} |"]
    if mpi:
        lines.append(f"| MPI_Send / MPI_Recv | {num(r['mpi_pingpong_us'], '.3f')} | 1 |")
    lines += ["", "Bandwidth per rank (ring: each rank sends to the next and receives from "
              "the previous at once; memcpy: every rank copies at once), GB/s:", "",
              "| size | send/recv | put_signal | memcpy | MPI send/recv | send/recv / MPI "
              "| send/recv / memcpy | put_signal / memcpy |",
              "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for row in r["sizes"]:
        lines.append(
            f"| {human(row['bytes'])} | {num(row['sendrecv_gbps'], '.2f')} | "
            f"{num(row['put_signal_gbps'], '.2f')} | {num(row['memcpy_gbps'], '.2f')} | "
            f"{num(row.get('mpi_sendrecv_gbps'), '.2f')} | "
            f"{num(ratio(row['sendrecv_gbps'], row.get('mpi_sendrecv_gbps')), '.2f')} | "
            f"{num(ratio(row['sendrecv_gbps'], row['memcpy_gbps']), '.2f')} | "
            f"{num(ratio(row['put_signal_gbps'], row['memcpy_gbps']), '.2f')} |")
    lines += ["", "Allreduce (float sum), µs per call; speed-up = MPI time / ncore time:", "",
              "| size | ncore | MPI_Allreduce | ncore speed / MPI |",
              "| ---: | ---: | ---: | ---: |"]
    for row in r.get("allreduce", []):
        lines.append(f"| {human(row['bytes'])} | {num(row['ncore_us'], '.2f')} | "
                     f"{num(row.get('mpi_us'), '.2f')} | "
                     f"{num(ratio(row.get('mpi_us'), row['ncore_us']), '.2f')} |")
    return "\n".join(lines) + "\n"


def log_plot(plt, rows, series, xlabel, ylabel, title, path):
    """One log-log plot of rows: series is ((key, label), ...); a series
    with no value at all (no MPI build) is left out."""
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for key, label in series:
        ys = [row.get(key) for row in rows]
        if any(y is not None for y in ys):
            ax.plot([row["bytes"] for row in rows], ys, marker="o", label=label)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def plot(r, base):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("report: matplotlib missing (apt-get install python3-matplotlib): no PNG")
        return
    title = f"ncore {r['backend']} backend, {r['nranks']} ranks ({r.get('date', '?')})"
    log_plot(plt, r["sizes"],
             (("sendrecv_gbps", "ncore send/recv"), ("put_signal_gbps", "ncore put_signal"),
              ("memcpy_gbps", "memcpy (baseline)"),
              ("mpi_sendrecv_gbps", "Open MPI send/recv (baseline)")),
             "message size (bytes)", "GB/s per rank", title, base + "-bandwidth.png")
    if r.get("allreduce"):
        log_plot(plt, r["allreduce"],
                 (("ncore_us", "ncore_allreduce"), ("mpi_us", "MPI_Allreduce (baseline)")),
                 "bytes (float32 sum)", "µs per call (lower is better)", title,
                 base + "-allreduce.png")


def main():
    for path in sys.argv[1:]:
        with open(path) as f:
            result = json.load(f)
        base = os.path.splitext(path)[0]
        with open(base + ".md", "w") as f:
            f.write(table(result))
        plot(result, base)
        print(open(base + ".md").read())


if __name__ == "__main__":
    main()
