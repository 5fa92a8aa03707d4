#!/usr/bin/env python3
"""Conformance runner (Python): runs this rank's plan through the Python
binding and prints one canonical JSON line per step (conformance/README.md).

The world communicator comes from the `ncore` package
(Communicator.from_env with NCCLConfig(timeout=...)); queries, lifecycle,
close / is_valid and groups go through the package's objects; data and
creation steps through `ncore.raw`, the binding's SWIG layer, because the
cases pass what only the C signatures can express (NULL and wrong-type
handles, raw dtype and operator numbers, counts that disagree with the
buffer, struct_size overrides) and expect C's exact messages (README.md). A
failing call raises the package's NcclError subclass for its status; its
.status and .message are what the runner prints.

Run by conformance/run.py under tools/ncore-run with
NCORE_CONFORMANCE_PLAN_DIR set."""

from __future__ import annotations

import json
import os
import sys

import ncore
from ncore import raw

import ops_data
import ops_handles
import plan as plan_module
from state import Runner

OPS = {
    "buffer": ops_data.op_buffer, "check": ops_data.op_check, "sync": ops_data.op_sync,
    "send": ops_data.op_send, "recv": ops_data.op_recv,
    **{name: ops_data.op_collective for name in (
        "allreduce", "reduce", "reduce_scatter", "broadcast", "gather", "scatter",
        "allgather", "alltoall")},
    "signal": ops_data.op_signal, "wait_signal": ops_data.op_wait_signal,
    "put_signal": ops_data.op_put_signal, "symmetric_put": ops_data.op_symmetric_put,
    "symmetric_get": ops_data.op_symmetric_get,
    "comm_query": ops_handles.op_comm_query, "group_start": ops_handles.op_group,
    "group_end": ops_handles.op_group, "register_buffer": ops_handles.op_register_buffer,
    "register_window": ops_handles.op_register_window,
    "window_query": ops_handles.op_window_query,
    "registered_buffer_query": ops_handles.op_registered_buffer_query,
    "close": ops_handles.op_close, "is_valid": ops_handles.op_is_valid,
    "create_pre_mul_sum": ops_handles.op_create_pre_mul_sum,
    "custom_redop_query": ops_handles.op_custom_redop_query,
    "create_dev_comm": ops_handles.op_create_dev_comm,
    "dev_comm_info": ops_handles.op_dev_comm_info,
    "symmetric_alloc": ops_handles.op_symmetric_alloc,
    "symmetric_query": ops_handles.op_symmetric_query, "split": ops_handles.op_split,
    "shrink": ops_handles.op_shrink, "finalize": ops_handles.op_lifecycle,
    "destroy": ops_handles.op_lifecycle, "abort": ops_handles.op_lifecycle,
    "mem_alloc": ops_handles.op_mem, "mem_free": ops_handles.op_mem,
    "dtype_size": ops_handles.op_dtype_size, "sleep": ops_handles.op_sleep,
    "die": ops_handles.op_die,
}


def run_step(runner: Runner, step: plan_module.Step) -> tuple[str, str, object]:
    """Runs one step: (status name, message, value or None)."""
    try:
        value = OPS[step.op](runner, step)
    except ncore.NcclError as error:
        return raw.ncore_status_string(error.status), error.message, None
    return "NCORE_OK", "", value


def print_result(case: str, rank: int, step: plan_module.Step, status: str, message: str,
                 value: object) -> None:
    """One canonical JSON line; `value` only on success and when produced."""
    record = {"case": case, "rank": rank, "step": step.index, "op": step.op,
              "status": status, "message": message}
    if status == "NCORE_OK" and value is not None:
        record["value"] = value
    print(json.dumps(record, separators=(",", ":"), ensure_ascii=False), flush=True)


def main() -> int:
    directory, rank = os.environ.get("NCORE_CONFORMANCE_PLAN_DIR"), os.environ.get("NCORE_RANK")
    if not directory or not rank:
        print("conformance: NCORE_CONFORMANCE_PLAN_DIR and NCORE_RANK must be set",
              file=sys.stderr)
        return 2
    plan = plan_module.load(os.path.join(directory, f"plan.{rank}"))
    for step in plan.steps:
        if step.op not in OPS:
            print(f"conformance: unknown op {step.op}", file=sys.stderr)
            return 2
    try:
        world = ncore.Communicator.from_env(ncore.NCCLConfig(timeout=plan.timeout_ms / 1000))
    except ncore.NcclError as error:
        print(f"conformance: init failed: {error.message}", file=sys.stderr)
        return 2
    runner = Runner(world)
    for step in plan.steps:
        print_result(plan.case_name, runner.rank, step, *run_step(runner, step))
    if raw.ncore_comm_is_valid(runner.world):
        raw.ncore_comm_destroy(runner.world)
    return 0


if __name__ == "__main__":
    sys.exit(main())
