#!/usr/bin/env python3
"""bench/gpu/entry_cost_profile.py — libncore's instructions and cache
misses per collective call, warm and cold, on this machine (no GPU).

Runs bench/gpu/entry_cost (bench/gpu/build.sh builds it) under callgrind
with its cache simulation, against the NCCL double (tests/fake_nccl/build.sh
first), counting only inside the public call (--toggle-collect), and sums
what libncore spends per call: its own functions, and the C library and
loader functions they call (thread-locals, locks); NCCL's and the driver's
share is left out. "cold" sets FAKE_NCCL_TOUCH_BYTES, so that each enqueue
of the double works through that much memory of its own as real NCCL's
does, evicting what ncore keeps between calls; "warm" does not.

The simulated caches are one core of a GPU host's Xeon (L1d 48 KiB 12-way,
L1i 32 KiB, its 2 MiB L2 as the last level): a D1 miss is a line fetched
from L2 or beyond, an LL miss one fetched from L3 or memory.

usage: entry_cost_profile.py [--lib DIR] [--calls N] [--touch BYTES]
                             [--op reduce|broadcast|allreduce|sendrecv]...
                             [--functions]
  --op sendrecv a group of a send and a recv to itself, counted inside
                ncore_group_start, ncore_send, ncore_recv, ncore_group_end
  --lib DIR     the libncore to measure (LD_LIBRARY_PATH; default build/lib):
                two builds side by side give before / after in one run
  --touch BYTES the cold run's footprint (default 4 MiB: evicts L1 and L2)
  --functions   one row per libncore function (per call), not only totals
"""
import argparse
import collections
import os
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CACHES = ["--I1=32768,8,64", "--D1=49152,12,64", "--LL=2097152,16,64"]
# Libraries whose time is NCCL's, the driver's or the benchmark's, not ncore's.
NOT_NCORE = ("libnccl", "libcuda", "entry_cost")


def parse(path):
    """Self cost per (object, function) and inclusive cost per call edge."""
    names = {"ob": {}, "fl": {}, "fn": {}}
    kind_of = {"ob": "ob", "cob": "ob", "fl": "fl", "fi": "fl", "fe": "fl",
               "cfi": "fl", "cfl": "fl", "fn": "fn", "cfn": "fn"}
    events = []
    self_cost = collections.defaultdict(lambda: [0] * len(events))
    call_cost = collections.defaultdict(lambda: [0] * len(events))
    ob = fn = cob = cfn = None
    pending_call = False

    def name(kind, text):
        text = text.strip()
        table = names[kind_of[kind]]
        if text.startswith("("):
            key, _, rest = text.partition(")")
            if rest.strip():
                table[key] = rest.strip()
            return table[key]
        return text

    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("events:"):
                events = line.split()[1:]
                continue
            if "=" in line and line.split("=", 1)[0] in kind_of:
                key, value = line.split("=", 1)
                value = name(key, value)
                if key == "ob":
                    ob = value
                elif key == "fn":
                    fn, cob = value, None
                elif key == "cob":
                    cob = value
                elif key == "cfn":
                    cfn = value
                continue
            if line.startswith("calls="):
                pending_call = True
                continue
            if not line or not (line[0].isdigit() or line[0] in "+-*"):
                continue
            values = [int(v) for v in line.split()[1:]]
            target = call_cost[(ob, fn, cob or ob, cfn)] if pending_call \
                else self_cost[(ob, fn)]
            for i, v in enumerate(values):
                target[i] += v
            if pending_call:
                pending_call, cob = False, None
    return events, self_cost, call_cost


def toggles(op):
    """callgrind's options counting inside op's public calls only."""
    calls = ["group_start", "send", "recv", "group_end"] \
        if op == "sendrecv" else [op]
    return ["--toggle-collect=ncore_" + c for c in calls]


def measure(lib, op, calls, touch):
    env = dict(os.environ)
    env.update({
        "NCORE_BACKEND": "nccl", "NCORE_ALGO": "nccl",
        "FAKE_NCCL_VERSION": "2.28.9",
        "NCORE_NCCL_LIBRARY": os.path.join(ROOT, "build/fake-nccl/2.28.9/libnccl.so.2"),
        "NCORE_CUDA_LIBRARY": os.path.join(ROOT, "build/fake-nccl/libcuda.so.1"),
        "LD_LIBRARY_PATH": os.path.abspath(lib),
        "FAKE_NCCL_TOUCH_BYTES": str(touch),
    })
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "callgrind.out")
        subprocess.run(
            ["valgrind", "--tool=callgrind", "--cache-sim=yes", *CACHES,
             "--collect-atstart=no", *toggles(op),
             "--callgrind-out-file=" + out,
             os.path.join(ROOT, "build/bin/entry_cost"), str(calls), op],
            env=env, check=True, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        return parse(out)


def per_function(events, self_cost, call_cost):
    """libncore's functions (self) and the outside calls they make
    (inclusive, named "<callee> (from libncore)")."""
    rows = collections.defaultdict(lambda: [0] * len(events))
    for (ob, fn), cost in self_cost.items():
        if ob and "libncore" in ob:
            for i, v in enumerate(cost):
                rows[fn][i] += v
    for (ob, fn, cob, cfn), cost in call_cost.items():
        if ob and "libncore" in ob and cob and "libncore" not in cob \
                and not any(n in cob for n in NOT_NCORE):
            for i, v in enumerate(cost):
                rows[cfn + " (from libncore)"][i] += v
    return rows


def summary(events, rows, calls):
    def total(*names):
        return sum(sum(r[events.index(n)] for r in rows.values())
                   for n in names if n in events) / calls
    return {"Ir": total("Ir"), "D1 misses": total("D1mr", "D1mw"),
            "LL misses": total("DLmr", "DLmw"), "I1 misses": total("I1mr"),
            "ILL misses": total("ILmr")}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--lib", action="append")
    p.add_argument("--calls", type=int, default=2000)
    p.add_argument("--touch", type=int, default=4 << 20)
    p.add_argument("--op", action="append")
    p.add_argument("--functions", action="store_true")
    a = p.parse_args()
    libs = a.lib or [os.path.join(ROOT, "build/lib")]
    ops = a.op or ["reduce", "broadcast", "allreduce"]
    print("per call, libncore and the libc/ld.so calls it makes "
          "(callgrind cache simulation: " + " ".join(CACHES) + ")")
    for lib in libs:
        for op in ops:
            for label, touch in (("warm", 0), ("cold", a.touch)):
                events, self_cost, call_cost = measure(lib, op, a.calls, touch)
                rows = per_function(events, self_cost, call_cost)
                s = summary(events, rows, a.calls)
                print(f"{lib} {op} {label} (touch {touch}): " + ", ".join(
                    f"{k} {v:.1f}" for k, v in s.items()))
                if a.functions:
                    order = sorted(rows.items(), key=lambda kv: -kv[1][0])
                    for fn, cost in order:
                        c = dict(zip(events, cost))
                        if c.get("Ir", 0) < a.calls / 2:
                            continue
                        d1 = (c.get("D1mr", 0) + c.get("D1mw", 0)) / a.calls
                        ll = (c.get("DLmr", 0) + c.get("DLmw", 0)) / a.calls
                        print(f"  {c.get('Ir', 0) / a.calls:8.1f} Ir "
                              f"{d1:6.2f} D1 {ll:6.2f} LL "
                              f"{c.get('I1mr', 0) / a.calls:6.2f} I1  {fn}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
