#!/usr/bin/env python3
"""Turns a benchmark's JSON into a markdown table and a PNG plot.

    python3 bench/report.py bench/results/host-2ranks.json

writes host-2ranks.md and host-2ranks.png beside it. Figures are reported as
ratios against the baseline measured in the same run (memcpy here), as the
project's guide asks; absolute numbers are only meaningful on the machine
named in the file.
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


def table(result):
    lines = [f"Backend {result['backend']}, {result['nranks']} ranks; "
             f"machine: {result.get('machine', 'unknown')}; date: {result.get('date', '?')}; "
             f"command: `{result.get('command', '?')}`", "",
             f"8-byte ping-pong, one way: send/recv {result['pingpong_us']:.2f} us, "
             f"put_signal -> wait_signal {result['put_signal_latency_us']:.2f} us", "",
             "| size | send/recv GB/s | put_signal GB/s | memcpy GB/s | send/recv / memcpy | put_signal / memcpy |",
             "| ---: | ---: | ---: | ---: | ---: | ---: |"]
    for row in result["sizes"]:
        mc = row["memcpy_gbps"] or float("nan")
        lines.append(f"| {human(row['bytes'])} | {row['sendrecv_gbps']:.3f} | "
                     f"{row['put_signal_gbps']:.3f} | {row['memcpy_gbps']:.3f} | "
                     f"{row['sendrecv_gbps'] / mc:.2f} | {row['put_signal_gbps'] / mc:.2f} |")
    return "\n".join(lines) + "\n"


def plot(result, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("report: matplotlib missing (apt-get install python3-matplotlib): no PNG")
        return
    sizes = [r["bytes"] for r in result["sizes"]]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for key, label in (("sendrecv_gbps", "send/recv"), ("put_signal_gbps", "put_signal"),
                       ("memcpy_gbps", "memcpy (baseline)")):
        ax.plot(sizes, [r[key] for r in result["sizes"]], marker="o", label=label)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("message size (bytes)")
    ax.set_ylabel("GB/s")
    ax.set_title(f"ncore {result['backend']} backend, {result['nranks']} ranks")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    for path in sys.argv[1:]:
        with open(path) as f:
            result = json.load(f)
        base = os.path.splitext(path)[0]
        with open(base + ".md", "w") as f:
            f.write(table(result))
        plot(result, base + ".png")
        print(open(base + ".md").read())


if __name__ == "__main__":
    main()
