#!/usr/bin/env bash
# make bench: the host-backend benchmarks on 2 and 4 processes, ncore against
# Open MPI's shared-memory transport and memcpy in the same run, written to
# bench/results/host-<N>ranks.{json,md} and rendered to PNG plots
# (bench/report.py), then handle lookups from several threads
# (bench/c/handle_lookups.c). Benchmarks are not tests: they never fail on speed.
#   NCORE_BENCH_MAX_BYTES  largest message (default 64 MiB)
#   NCORE_BENCH_ROUNDS     interleaved rounds, best of (default 5)
#   NCORE_BENCH_RANKS      rank counts (default "2 4")
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${NCORE_BUILD_DIR:-$root/build}
max=${NCORE_BENCH_MAX_BYTES:-67108864}
rounds=${NCORE_BENCH_ROUNDS:-5}
for tool in mpicc mpirun; do
  command -v $tool >/dev/null || { echo "bench: $tool missing (make deps installs openmpi-bin, libopenmpi-dev)"; exit 1; }
done
# The MPI build of bench/host/p2p_bench.c, against the library make lib built.
bin=$build/bench
mkdir -p "$bin"
mpicc -O2 -std=c11 -Wall -Werror -DNCORE_BENCH_MPI -I"$root/abi/include" \
  "$root/bench/host/p2p_bench.c" -o "$bin/mpi_p2p_bench" \
  -L"$build/lib" -Wl,-rpath,"$build/lib" -lncore
# Open MPI 4.1 (Debian 12) names its shared-memory transport vader (5.x: sm);
# pml ob1 keeps UCX's own transports out of it.
btl=vader
ompi_info --parsable 2>/dev/null | grep -q 'mca:btl:vader' || btl=sm
for n in ${NCORE_BENCH_RANKS:-2 4}; do
  out=$root/bench/results/host-${n}ranks.json
  # Other work on the machine skews every figure: recorded with them.
  load_before=$(cut -d' ' -f1-3 /proc/loadavg)
  mpi=(mpirun --allow-run-as-root --oversubscribe -np "$n" --mca pml ob1 --mca btl "self,$btl")
  cmd="${mpi[*]} mpi_p2p_bench --max-bytes $max --rounds $rounds"
  NCORE_BACKEND=host OMPI_MCA_rmaps_base_oversubscribe=1 "${mpi[@]}" \
    "$bin/mpi_p2p_bench" --max-bytes "$max" --rounds "$rounds" | grep '^{' > "$out.tmp"
  load_after=$(cut -d' ' -f1-3 /proc/loadavg)
  /usr/bin/python3 - "$out.tmp" "$out" "$cmd" "$(git -C "$root" rev-parse --short HEAD)" "$(mpirun --version | head -1)" "$load_before" "$load_after" <<'PY'
import json, platform, subprocess, sys, datetime
r = json.load(open(sys.argv[1]))
cpu = subprocess.run(["sh", "-c", "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"],
                     capture_output=True, text=True).stdout.strip()
cores = subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip()
r["machine"] = f"{platform.node()}: {cpu}, {cores} cores"
r["date"] = datetime.datetime.now().isoformat(timespec="minutes")
r["command"] = sys.argv[3]
r["commit"] = sys.argv[4]
r["mpi_version"] = sys.argv[5]
r["loadavg_before"] = sys.argv[6]
r["loadavg_after"] = sys.argv[7]
json.dump(r, open(sys.argv[2], "w"), indent=1)
PY
  rm -f "$out.tmp"
  /usr/bin/python3 "$root/bench/report.py" "$out"
done
# Handle lookups from threads driving their own communicators (the table lock and shared cache lines made them wait for each other).
cc -O2 -std=c11 -Wall -Werror -D_GNU_SOURCE -I"$root/abi/include" "$root/bench/c/handle_lookups.c" \
  -o "$bin/handle_lookups" -L"$build/lib" -Wl,-rpath,"$build/lib" -lncore -lpthread
threads=$(nproc); [ "$threads" -le 8 ] || threads=8
NCORE_BACKEND=host "$bin/handle_lookups" 2000000 "$threads" | tee "$root/bench/results/host-handle-lookups.txt"
