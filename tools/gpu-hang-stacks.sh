#!/usr/bin/env bash
# tools/gpu-hang-stacks.sh PID: every thread's stack of a hung process
# (cuda-gdb, which also stops at CUDA's own frames), preceded by a line
# "NCCLBASE <hex>" with the address libnccl is loaded at, so that the frames
# of a stripped libnccl can be named later against an unstripped build of the
# same source (tools/nccl-symbolize.py). tools/gpu-repeat.sh uses it as the
# test harness's NCORE_TEST_HANG_COMMAND.
pid=${1:?usage: tools/gpu-hang-stacks.sh PID}
echo "NCCLBASE $(grep -m1 'libnccl' "/proc/$pid/maps" | cut -d- -f1)"
timeout 40 cuda-gdb -batch -ex 'thread apply all bt 24' -p "$pid" 2>&1 |
  grep -v '^\[New Thread\|^warning:'
