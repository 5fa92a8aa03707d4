#!/usr/bin/env bash
# examples/nccl4py/run.sh: runs every nccl.core example with each array
# library of ARRAYS (default numpy) and each rank count of RANKS (default
# "1 2 3") under ncore's launcher, and prints one line per run, then
# "N passed, N failed".
#   examples/nccl4py/run.sh                      # host backend, NumPy (make test)
#   BACKEND=nccl ARRAYS="torch cupy" RANKS="1 2" examples/nccl4py/run.sh
# BACKEND (default host) is the launcher's --backend; each of ARRAYS (numpy,
# torch, cupy) becomes NCCL_EXAMPLE_ARRAYS (common.py); NCORE_OVERSUBSCRIBE=1
# lets NCCL ranks share a GPU. Needs the Python extension built (bindings/python/
# test.sh, or build-ext.sh on the GPU machines); a failing run's output is
# printed; one that exits 77 (common.skip: the platform lacks what it shows,
# e.g. ranks in separate LSA teams without host RMA or GIN) counts as
# skipped, with its reason. PYTHON defaults to /usr/bin/python3 (python3 with torch / CuPy).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
# An absolute path: mpirun starts ranks with a PATH of its own, which may
# find another python3 (one without this one's packages).
python=$(command -v "${PYTHON:-/usr/bin/python3}")
backend=${BACKEND:-host}
export PYTHONPATH="$repo/bindings/python${PYTHONPATH:+:$PYTHONPATH}"
passed=0 failed=0 skipped=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for NCCL_EXAMPLE_ARRAYS in ${ARRAYS:-numpy}; do
  export NCCL_EXAMPLE_ARRAYS
  for example in communicators collectives p2p_ring registration symmetric_memory \
                 one_sided device_communicator pre_mul_sum allgather_copy_engine \
                 per_call_config teams_and_params; do
    for n in ${RANKS:-1 2 3}; do
      timeout -k 5 120 "$python" -m ncore.run -n "$n" --backend "$backend" --tag \
        --timeout 100 "$here/$example.py" > "$log" 2>&1
      rc=$?
      if [ "$rc" = 0 ]; then
        passed=$((passed + 1))
        echo "ok    $example ($n ranks, $backend, $NCCL_EXAMPLE_ARRAYS)"
      elif [ "$rc" = 77 ] && grep -q "skipped:" "$log"; then
        skipped=$((skipped + 1))
        echo "skip  $example ($n ranks, $backend, $NCCL_EXAMPLE_ARRAYS): $(grep -m1 -o 'skipped: .*' "$log")"
      else
        failed=$((failed + 1))
        echo "FAIL  $example ($n ranks, $backend, $NCCL_EXAMPLE_ARRAYS):"
        sed 's/^/      /' "$log"
      fi
    done
  done
done
# Under a launcher that sets none of torchrun's names, an example says so
# and fails instead of running as jobs of one rank each.
for mpirun in "/usr/bin/mpirun.openmpi --allow-run-as-root --oversubscribe -x PYTHONPATH" \
              /usr/bin/mpirun.mpich; do
  [ -x "${mpirun%% *}" ] || continue
  out=$(timeout -k 5 120 $mpirun -n 2 env -u RANK "$python" "$here/collectives.py" 2>&1)
  rc=$?
  # At least one rank's message: Open MPI may end the job at the first
  # rank's exit before the other prints, and MPICH may join two ranks'
  # lines into one (occurrences, not lines, are counted).
  if [ "$rc" != 0 ] && [ "$(echo "$out" | grep -o 'started by .*SIZE=2), which sets none' | wc -l)" -ge 1 ]; then
    passed=$((passed + 1))
    echo "ok    collectives under ${mpirun%% *} -n 2: the ranks say they need torchrun's variables"
  else
    failed=$((failed + 1))
    echo "FAIL  collectives under ${mpirun%% *} -n 2 (exit $rc; expected each rank to stop, saying why):"
    echo "$out" | tail -30 | sed 's/^/      /'
  fi
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
