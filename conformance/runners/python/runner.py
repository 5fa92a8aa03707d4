#!/usr/bin/env python3
"""Conformance runner (Python): runs this rank's part of a batch of cases
through the Python binding (conformance/README.md), as the C runner does:
for each case of $NCORE_CONFORMANCE_PLAN_DIR/batch it makes the world
communicator from the case's own unique id (batch.py) with
Communicator.init and NCCLConfig(timeout=...), prints a header record, one
canonical JSON line per step of plan.<rank>, releases everything the case
made and prints an end record.

Queries, lifecycle, close / is_valid and groups go through the package's
objects; data and creation steps through `ncore.raw`, the binding's SWIG
layer, because the cases pass what only the C signatures can express (NULL
and wrong-type handles, raw dtype and operator numbers, counts that disagree
with the buffer, struct_size overrides) and expect C's exact messages
(README.md). A failing call raises the package's NcclError subclass for its
status; its .status and .message are what the runner prints.

Run by conformance/run.py under tools/ncore-run."""

from __future__ import annotations

import json
import os
import sys

import ncore
from ncore import raw

import batch
import capture
import op_table
import ops_data
import ops_handles
import plan as plan_module
from state import Runner

OPS = {
    "buffer": ops_data.op_buffer, "check": ops_data.op_check, "sync": ops_data.op_sync,
    # the collective and point-to-point rows of core/op_table.h
    **{name: ops_data.op_collective for name in op_table.COLLECTIVES},
    **{name: ops_data.op_p2p for name in op_table.P2P},
    "signal": ops_data.op_signal, "wait_signal": ops_data.op_wait_signal,
    "put_signal": ops_data.op_put_signal, "symmetric_put": ops_data.op_symmetric_put,
    "symmetric_get": ops_data.op_symmetric_get,
    "comm_query": ops_handles.op_comm_query, "team": ops_handles.op_team, "group_start": ops_handles.op_group,
    "group_end": ops_handles.op_group, "register_buffer": ops_handles.op_register_buffer,
    "register_window": ops_handles.op_register_window,
    "window_query": ops_handles.op_window_query,
    "registered_buffer_query": ops_handles.op_registered_buffer_query,
    "close": ops_handles.op_close, "is_valid": ops_handles.op_is_valid,
    "create_pre_mul_sum": ops_handles.op_create_pre_mul_sum,
    "custom_redop_query": ops_handles.op_custom_redop_query,
    "create_dev_comm": ops_handles.op_create_dev_comm,
    "dev_comm_info": ops_handles.op_dev_comm_info,
    "dev_comm_resource_handle": ops_handles.op_dev_comm_resource_handle,
    "dev_comm_multimem_handle": ops_handles.op_dev_comm_multimem_handle,
    "symmetric_alloc": ops_handles.op_symmetric_alloc,
    "symmetric_query": ops_handles.op_symmetric_query, "split": ops_handles.op_split,
    "shrink": ops_handles.op_shrink, "finalize": ops_handles.op_lifecycle,
    "destroy": ops_handles.op_lifecycle, "abort": ops_handles.op_lifecycle,
    "revoke": ops_handles.op_comm_control, "suspend": ops_handles.op_comm_control,
    "resume": ops_handles.op_comm_control, "mem_stat": ops_handles.op_mem_stat,
    "synchronize": ops_handles.op_synchronize,
    "mem_alloc": ops_handles.op_mem, "mem_free": ops_handles.op_mem,
    "dtype_size": ops_handles.op_dtype_size,
    "library_info": ops_handles.op_library_info, "param": ops_handles.op_param,
    "sleep": ops_handles.op_sleep,
    "settle": ops_handles.op_settle,
    "die": ops_handles.op_die,
    "capture_begin": capture.op_capture_begin, "capture_end": capture.op_capture_end,
}


def run_step(runner: Runner, step: plan_module.Step) -> tuple[str, str, object]:
    """Runs one step: (status name, message, value or None)."""
    try:
        value = OPS[step.op](runner, step)
    except (ncore.NcclError, ops_handles.StepStatus) as error:
        return raw.ncore_status_string(error.status), error.message, None
    return "NCORE_OK", "", value


def emit(record: dict) -> None:
    """One JSON line, compact, as the other runners print it."""
    print(json.dumps(record, separators=(",", ":"), ensure_ascii=False), flush=True)


def print_result(case: str, rank: int, step: plan_module.Step, status: str, message: str,
                 value: object) -> None:
    """One canonical JSON line; `value` only on success and when produced."""
    record = {"case": case, "rank": rank, "step": step.index, "op": step.op,
              "status": status, "message": message}
    if status == "NCORE_OK" and value is not None:
        record["value"] = value
    emit(record)


def rank_device() -> "int | None":
    """The GPU this rank names for its communicators: local rank % devices
    on NCCL (ncore/launch.h's rule, as every runner does), None on the host."""
    if ncore.Backend.resolve() != ncore.Backend.NCCL:
        return None
    count = raw.ncore_device_count(int(ncore.Backend.NCCL))
    local = int(os.environ.get("NCORE_LOCAL_RANK", os.environ.get("NCORE_RANK", "0")))
    return local % count if count > 0 else None


DEVICE = rank_device()


def begin_case(plan: plan_module.Plan, rank: int, nranks: int,
               uid: "ncore.UniqueId") -> "Runner | None":
    """Makes the case's world communicator and prints the header record: the
    world's size and this rank's LSA team, or why there is no world."""
    record = {"case": plan.case_name, "rank": rank, "begin": True}
    world = None
    try:
        world = ncore.Communicator.init(nranks, rank, uid,
                                        ncore.NCCLConfig(timeout=plan.timeout_ms / 1000,
                                                         device=DEVICE))
        runner = Runner(world, plan.timeout_ms, DEVICE)
        team = {"nranks": world.nranks, "lsa_rank": world.lsa_rank, "lsa_size": world.lsa_size}
    except ncore.NcclError as error:
        emit({**record, "status": raw.ncore_status_string(error.status),
              "message": error.message})
        if world is not None:
            world.destroy()
        return None
    emit({**record, "status": "NCORE_OK", "message": "", **team})
    return runner


def run_case(plan: plan_module.Plan, case_dir: str, rank: int, nranks: int) -> None:
    """Runs one case: world, header, steps, release, end record."""
    runner = begin_case(plan, rank, nranks, batch.unique_id(case_dir, rank))
    if runner is not None:
        for step in plan.steps:
            print_result(plan.case_name, runner.rank, step, *run_step(runner, step))
        capture.release(runner)
        runner.close()
    emit({"case": plan.case_name, "rank": rank, "end": True})


def main() -> int:
    directory = os.environ.get("NCORE_CONFORMANCE_PLAN_DIR")
    rank, nranks = os.environ.get("NCORE_RANK"), os.environ.get("NCORE_NRANKS")
    if not directory or not rank or not nranks:
        print("conformance: run me with tools/ncore-run and NCORE_CONFORMANCE_PLAN_DIR",
              file=sys.stderr)
        return 2
    try:
        cases = batch.load(directory)
        # Every plan is read and checked before the first case runs.
        plans = [plan_module.load(os.path.join(case, f"plan.{rank}")) for case in cases]
        for plan in plans:
            for step in plan.steps:
                if step.op not in OPS:
                    print(f"conformance: unknown op {step.op}", file=sys.stderr)
                    return 2
        for case, plan in zip(cases, plans):
            run_case(plan, case, int(rank), int(nranks))
    except batch.BatchError as error:
        print(f"conformance: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
