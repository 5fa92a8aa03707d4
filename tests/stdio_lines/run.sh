#!/usr/bin/env bash
# tests/stdio_lines/run.sh: a rank's output arrives line by line, while the
# rank still runs, under every launcher of this machine:
# libncore line-buffers a C rank's stdout when a launcher started it
# (core/stdio_lines.c), and the Python package does the same to
# sys.stdout (ncore/_stdio_lines.py). Each run starts 2 ranks of a program
# that prints one line and then waits until this script has seen that line
# in the launcher's output (first_line.c, first_line.py); the script gives
# it 15 s, then lets the ranks go either way, and passes when the first
# lines came before that and every rank exited 0. NCORE_LINE_BUFFERED=0
# must keep stdio's own buffering (the first line then arrives only at the
# end). A launcher that is not installed is a failure in CI (CI=true), a
# skip elsewhere. Last line: "N passed, N failed[, N skipped]".
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
work=$(mktemp -d /tmp/ncore-stdio-lines.XXXXXX)
trap 'rm -rf "$work"' EXIT
passed=0 failed=0 skipped=0
python=/usr/bin/python3
. "$repo/tests/harness/master_port.sh"

ok() { passed=$((passed + 1)); echo "ok    $1"; }
fail() { failed=$((failed + 1)); echo "FAIL  $1"; shift; [ $# -gt 0 ] && sed 's/^/      /' "$@" | tail -n 20; }
skip() {
  if [ "${CI:-}" = true ]; then fail "$1 (missing in CI: $2)"; return; fi
  skipped=$((skipped + 1)); echo "skip  $1: $2"
}

[ -f build/lib/libncore.so ] || { echo "run.sh: build/lib/libncore.so missing: make lib"; echo "0 passed, 1 failed"; exit 1; }
gcc -O2 -Wall -Werror -I abi/include tests/stdio_lines/first_line.c -o "$work/first_line" \
  -L build/lib -lncore -Wl,-rpath,"$repo/build/lib" || { echo "0 passed, 1 failed"; exit 1; }
export PYTHONPATH="$repo/bindings/python${PYTHONPATH:+:$PYTHONPATH}"
export NCORE_BACKEND=host
# What this suite shows is the library's doing, not the environment's.
unset PYTHONUNBUFFERED NCORE_LINE_BUFFERED

# seen_within LOG COUNT SECONDS: 0 once LOG holds COUNT first lines.
seen_within() {
  local log=$1 count=$2 deadline=$((SECONDS + $3))
  while [ $SECONDS -lt $deadline ]; do
    # Occurrences, not lines: torchrun --tee writes both ranks' output
    # through one tailer, which may put two ranks' lines on one.
    [ "$(grep -o 'first line, ncore' "$log" 2> /dev/null | wc -l)" -ge "$count" ] && return 0
    sleep 0.1
  done
  return 1
}

# run LABEL EXPECT COMMAND...: starts COMMAND (2 ranks of a program that
# takes the seen file last), waits for both first lines, lets the ranks go.
# EXPECT: "lines" (the first lines come while the ranks wait) or "blocks"
# (they come only after: NCORE_LINE_BUFFERED=0).
run() {
  local label=$1 expect=$2; shift 2
  local name; name=$(echo "$label" | tr -c 'a-zA-Z0-9' _)
  local log=$work/$name.log seen=$work/$name.seen
  rm -f "$seen"
  timeout -k 5 90 "$@" "$seen" > "$log" 2>&1 &
  local pid=$! early=0
  if [ "$expect" = lines ]; then seen_within "$log" 2 15 && early=1
  else sleep 3; grep -q 'first line' "$log" && early=1; fi
  touch "$seen"
  wait $pid
  local rc=$?
  local firsts seconds
  firsts=$(grep -o 'first line, ncore' "$log" | wc -l)
  seconds=$(grep -o 'second line' "$log" | wc -l)
  if [ $rc != 0 ] || [ "$firsts" != 2 ] || [ "$seconds" != 2 ]; then
    fail "$label (exit $rc, $firsts first and $seconds second lines)" "$log"
  elif [ "$expect" = lines ] && [ $early = 0 ]; then
    fail "$label: the first lines came only when the ranks ended" "$log"
  elif [ "$expect" = blocks ] && [ $early = 1 ]; then
    fail "$label: NCORE_LINE_BUFFERED=0, yet the first lines came at once" "$log"
  else ok "$label"; fi
}

c_rank="$work/first_line"
py_rank="$python $repo/tests/stdio_lines/first_line.py"

run "ncore-run: C" lines build/bin/ncore-run -n 2 $c_rank
if [ -x /usr/bin/mpirun.mpich ]; then
  run "mpirun.mpich: C" lines /usr/bin/mpirun.mpich -n 2 $c_rank
  run "mpirun.mpich: Python" lines /usr/bin/mpirun.mpich -n 2 $py_rank
  run "mpirun.mpich: C, NCORE_LINE_BUFFERED=0 keeps stdio's buffering" blocks \
    /usr/bin/mpirun.mpich -n 2 -genv NCORE_LINE_BUFFERED 0 $c_rank
else skip "mpirun.mpich" "mpich is not installed"; fi
if [ -x /usr/bin/mpirun.openmpi ]; then
  run "mpirun.openmpi: C" lines /usr/bin/mpirun.openmpi --allow-run-as-root \
    --oversubscribe -n 2 -x PYTHONPATH $c_rank
  run "mpirun.openmpi: Python" lines /usr/bin/mpirun.openmpi --allow-run-as-root \
    --oversubscribe -n 2 -x PYTHONPATH $py_rank
else skip "mpirun.openmpi" "openmpi-bin is not installed"; fi
if $python -c 'import torch.distributed.run' 2> /dev/null; then
  # The ranks' stdout is torchrun's own (here a file): --redirects 2 --tee 2
  # only for Debian's torch 1.13 under Python 3.11 (tests/launchers/run.sh).
  run "torchrun: C" lines $python -m torch.distributed.run --redirects 2 --tee 2 \
    --nproc_per_node 2 --master_port "$(master_port)" --no_python $c_rank
  run "torchrun: Python" lines $python -m torch.distributed.run --redirects 2 --tee 2 \
    --nproc_per_node 2 --master_port "$(master_port)" \
    $repo/tests/stdio_lines/first_line.py
else skip "torchrun" "python3-torch is not installed"; fi

# srun on a one-machine Slurm (tests/launchers/slurm.sh), started here.
slurm_dir=$work/slurm
if [ -x /usr/sbin/slurmd ] && [ -x /usr/sbin/slurmctld ] && command -v srun > /dev/null; then
  read -r free_ctld free_d < <($python -c 'import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
  trap 'NCORE_SLURMCTLD_PORT=$free_ctld NCORE_SLURMD_PORT=$free_d tests/launchers/slurm.sh stop "$slurm_dir" 2> /dev/null; rm -rf "$work"' EXIT
  if NCORE_SLURMCTLD_PORT=$free_ctld NCORE_SLURMD_PORT=$free_d \
     tests/launchers/slurm.sh start "$slurm_dir" > "$work/slurm-start.log" 2>&1; then
    export SLURM_CONF=$slurm_dir/slurm.conf
    run "srun: C" lines srun -n 2 --time=2 $c_rank
    run "srun: Python" lines srun -n 2 --time=2 $py_rank
  else fail "starting a one-machine Slurm" "$work/slurm-start.log"; fi
else
  trap 'rm -rf "$work"' EXIT
  skip "srun" "slurmd, slurmctld are not installed"
fi

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
