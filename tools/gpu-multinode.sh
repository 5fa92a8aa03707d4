#!/usr/bin/env bash
# tools/gpu-multinode.sh: the 2-node x 2-GPU topology on one 4-GPU machine:
# under each launcher there, two groups of 2 ranks with
# different NCCL_HOSTID, so NCCL sees two nodes and the world has two LSA
# teams of 2. The program (tests/launchers/programs/multinode.c, built by
# tests/launchers/run.sh as build/bin/ncore-multinode) joins with
# ncore_comm_init_from_env alone and checks the teams, allreduce,
# allgather, send/recv across teams, put_signal inside a team and its
# documented answer across teams (NOT_SUPPORTED, NULL peer pointer), and a
# split by node: 7 checks on each of 4 ranks.
#   ncore-run     -n 4, NCCL_HOSTID from NCORE_RANK / 2
#   mpirun        Open MPI, two app contexts of 2 ranks (-x NCCL_HOSTID=...)
#   torchrun      two agents (--nnodes 2 --node_rank 0|1), GPUs 0,1 and 2,3,
#                 static rendezvous: the id goes through the agent's store
# Slurm and MPICH are not installed there. Carry build/ from a machine where
# `make test` ran. Logs go to $OUT/gpu-multinode-logs.tar.gz; the last line
# is "N passed, N failed".
set -uo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-/tmp/gpu-multinode}
logs=$out/gpu-multinode-logs
mkdir -p "$logs"
bin=$repo/build/bin/ncore-multinode
nccl=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nccl/lib
[ -f "$nccl/libnccl.so.2" ] && export NCORE_NCCL_LIBRARY=$nccl/libnccl.so.2
export NCORE_BACKEND=nccl NCCL_NVLS_ENABLE=0 NCCL_SOCKET_IFNAME=lo NCCL_IB_DISABLE=1
export NCORE_DEBUG=INFO NCORE_DEBUG_FILE=$logs/ncore.%h.%p.log
export LD_LIBRARY_PATH=$repo/build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
passed=0 failed=0
nvidia-smi -L > "$logs/gpus.txt" 2>&1

# check LABEL LOG RC: exit 0, 28 "ok" lines, no FAIL.
check() {
  local oks
  oks=$(grep -c "^.*multinode: rank [0-3] [a-z_]* ok$" "$2")
  if [ "$3" = 0 ] && [ "$oks" = 28 ] && ! grep -q FAIL "$2"; then
    passed=$((passed + 1)); echo "ok    $1 (28 checks)"
  else
    failed=$((failed + 1)); echo "FAIL  $1 (exit $3, $oks of 28 checks ok)"
    grep -E "FAIL|rror" "$2" | head -n 20 | sed 's/^/      /'
  fi
}

if [ ! -x "$bin" ] || [ "$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')" -lt 4 ]; then
  echo "gpu-multinode: needs 4 GPUs and $bin (run make test first)"
  echo "0 passed, 1 failed"
  exit 1
fi

# ncore-run: one launcher, NCCL_HOSTID per pair of ranks.
timeout -k 10 150 "$repo/build/bin/ncore-run" -n 4 --timeout 140 sh -c \
  'NCCL_HOSTID=ncore-node$((NCORE_RANK / 2)) exec "$0"' "$bin" > "$logs/ncore-run.log" 2>&1
check "ncore-run -n 4, 2 nodes x 2 GPUs" "$logs/ncore-run.log" $?

# Open MPI: two app contexts, one per node.
if command -v mpirun > /dev/null; then
  mpi_env=(-x NCORE_BACKEND -x NCCL_NVLS_ENABLE -x NCCL_SOCKET_IFNAME -x NCCL_IB_DISABLE
           -x NCORE_DEBUG -x NCORE_DEBUG_FILE -x LD_LIBRARY_PATH)
  [ -n "${NCORE_NCCL_LIBRARY:-}" ] && mpi_env+=(-x NCORE_NCCL_LIBRARY)
  timeout -k 10 150 mpirun --allow-run-as-root --oversubscribe "${mpi_env[@]}" \
    -n 2 -x NCCL_HOSTID=mpi-node0 "$bin" : -n 2 -x NCCL_HOSTID=mpi-node1 "$bin" \
    > "$logs/mpirun.log" 2>&1
  check "mpirun (Open MPI), 2 app contexts x 2 ranks" "$logs/mpirun.log" $?
else echo "skip  mpirun: not installed"; fi

# torchrun: two agents, as on two machines.
if python3 -c 'import torch.distributed.run' 2> /dev/null; then
  port=$((29500 + RANDOM % 1000))
  for node in 0 1; do
    CUDA_VISIBLE_DEVICES=$((2 * node)),$((2 * node + 1)) NCCL_HOSTID=torch-node$node \
      timeout -k 10 150 python3 -m torch.distributed.run --nnodes 2 --node_rank $node \
      --nproc_per_node 2 --master_addr 127.0.0.1 --master_port $port --no_python "$bin" \
      > "$logs/torchrun-node$node.log" 2>&1 &
  done
  rc=0
  for job in $(jobs -p); do wait "$job" || rc=$?; done
  cat "$logs/torchrun-node0.log" "$logs/torchrun-node1.log" > "$logs/torchrun.log"
  check "torchrun, 2 agents x 2 ranks (agent store)" "$logs/torchrun.log" $rc
else echo "skip  torchrun: torch is not installed"; fi

tar -czf "$out/gpu-multinode-logs.tar.gz" -C "$out" gpu-multinode-logs && rm -rf "$logs"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
