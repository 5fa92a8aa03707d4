#!/usr/bin/env bash
# make bench: the host-backend benchmarks on 2 and 4 processes, written to
# bench/results/host-<N>ranks.{json,md,png}. Benchmarks are not tests: they
# never fail on speed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${NCORE_BUILD_DIR:-$root/build}
max=${NCORE_BENCH_MAX_BYTES:-67108864}
for n in 2 4; do
  out=$root/bench/results/host-${n}ranks.json
  cmd="ncore-run -n $n p2p_bench --max-bytes $max"
  NCORE_BACKEND=host "$build/bin/ncore-run" -n "$n" -- "$build/bin/p2p_bench" --max-bytes "$max" \
    | sed -n 's/^\[0\] //p' | grep '^{' > "$out.tmp"
  /usr/bin/python3 - "$out.tmp" "$out" "$cmd" <<'PY'
import json, platform, subprocess, sys, datetime
r = json.load(open(sys.argv[1]))
cpu = subprocess.run(["sh", "-c", "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"],
                     capture_output=True, text=True).stdout.strip()
r["machine"] = f"{platform.node()}: {cpu}, {subprocess.run(['nproc'], capture_output=True, text=True).stdout.strip()} cores"
r["date"] = datetime.date.today().isoformat()
r["command"] = sys.argv[3]
json.dump(r, open(sys.argv[2], "w"), indent=1)
PY
  rm -f "$out.tmp"
  /usr/bin/python3 "$root/bench/report.py" "$out"
done
