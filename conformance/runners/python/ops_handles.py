"""Conformance runner (Python): steps about communicators and resources --
queries, creation, close, is_valid, lifecycle, memory. Each mirrors the C
runner's step (runners/c/ops_handles.c) through ncore.raw."""

from __future__ import annotations

import os
import struct
import sys
import time
from typing import Optional

import numpy as np

import ncore
from ncore import raw

from ops_data import MEMCPY_HOST_TO_DEVICE, op_dtype
from plan import Step, object_field, parse_int
from state import (COMM, CUSTOM_REDOP, DEV_COMM, MEMORY, REGISTERED_BUFFER, SYMMETRIC,
                   WINDOW, Obj, Runner, i32, u32, u64)


class UnknownQuery(ncore.NcclInternalError):
    """A query step named a `what` this runner does not know."""


def _what(step: Step) -> Optional[str]:
    return step.arg("what")


def op_comm_query(r: Runner, step: Step) -> int:
    comm = r.comm(step)
    calls = {
        "rank": raw.ncore_comm_rank, "size": raw.ncore_comm_size,
        "device": raw.ncore_comm_device, "lsa_rank": raw.ncore_comm_lsa_rank,
        "lsa_size": raw.ncore_comm_lsa_size, "backend": raw.ncore_comm_backend,
        "async_error": raw.ncore_comm_async_error, "gin_type": raw.ncore_comm_gin_type,
        "railed_gin_type": raw.ncore_comm_railed_gin_type,
    }
    if _what(step) not in calls:
        raise UnknownQuery(f"comm_query: what: {_what(step)}")
    return int(calls[_what(step)](comm))


def _buffer_ptr(r: Runner, step: Step) -> tuple[int, int]:
    obj = r.get(step.arg("buffer"))
    nbytes = obj.bytes if obj is not None else 0
    if step.arg("size") is not None:
        nbytes = u64(step.int("size"))
    return (obj.ptr if obj is not None else 0), nbytes


def op_register_buffer(r: Runner, step: Step) -> None:
    ptr, nbytes = _buffer_ptr(r, step)
    handle = raw.ncore_register_buffer(r.comm(step), ptr, nbytes)
    r.put(step.arg("as"), Obj(REGISTERED_BUFFER, handle=handle))


def op_register_window(r: Runner, step: Step) -> None:
    ptr, nbytes = _buffer_ptr(r, step)
    handle = raw.ncore_register_window(r.comm(step), ptr, nbytes, u32(step.int("flags")))
    r.put(step.arg("as"), Obj(WINDOW, handle=handle, ptr=ptr))


def op_window_query(r: Runner, step: Step) -> int:
    obj = r.get(step.arg("window"))
    w = obj.handle if obj is not None else 0
    peer, offset = i32(step.int("peer")), u64(step.int("offset"))
    what = _what(step)
    if what == "size":
        return raw.ncore_window_size(w)
    if what == "peer_size":
        return raw.ncore_window_peer_size(w, peer)
    if what == "flags":
        return raw.ncore_window_flags(w)
    if what == "user_pointer_matches":
        p = raw.ncore_window_user_pointer(w)
        return int(obj is not None and p == obj.ptr)
    if what == "peer_pointer_null":
        return int(raw.ncore_window_peer_device_pointer(w, peer, offset) == 0)
    if what == "lsa_pointer_null":
        return int(raw.ncore_window_lsa_device_pointer(w, peer, offset) == 0)
    if what == "multimem_pointer_null":
        return int(raw.ncore_window_lsa_multimem_device_pointer(w, offset) == 0)
    raise UnknownQuery(f"window_query: what: {what}")


def op_registered_buffer_query(r: Runner, step: Step) -> int:
    h = r.handle(step.arg("handle"))
    if _what(step) == "size":
        return raw.ncore_registered_buffer_size(h)
    if _what(step) == "pointer_matches":
        buf = r.get(step.arg("buffer"))
        p = raw.ncore_registered_buffer_pointer(h)
        return int(buf is not None and p == buf.ptr)
    raise UnknownQuery(f"registered_buffer_query: what: {_what(step)}")


# close / is_valid per kind; an unknown name is treated as a window (as C).
_CLOSE = {REGISTERED_BUFFER: "ncore_registered_buffer_close",
          CUSTOM_REDOP: "ncore_custom_redop_close", DEV_COMM: "ncore_dev_comm_close",
          SYMMETRIC: "ncore_symmetric_free", COMM: "ncore_comm_destroy"}
_IS_VALID = {REGISTERED_BUFFER: "ncore_registered_buffer_is_valid",
             CUSTOM_REDOP: "ncore_custom_redop_is_valid", DEV_COMM: "ncore_dev_comm_is_valid",
             SYMMETRIC: "ncore_symmetric_is_valid", COMM: "ncore_comm_is_valid"}


def op_close(r: Runner, step: Step) -> None:
    obj = r.get(step.arg("handle"))
    kind = obj.kind if obj is not None else WINDOW
    getattr(raw, _CLOSE.get(kind, "ncore_window_close"))(obj.handle if obj is not None else 0)


def op_is_valid(r: Runner, step: Step) -> int:
    obj = r.get(step.arg("handle"))
    kind = obj.kind if obj is not None else WINDOW
    return int(getattr(raw, _IS_VALID.get(kind, "ncore_window_is_valid"))(
        obj.handle if obj is not None else 0))


def _scalar_bytes(step: Step, dtype: int) -> bytes:
    """The scalar in the operator's own type; 16/8-bit floats take hex bits."""
    text = step.arg("scalar")
    s = float(text) if text is not None else 1.0
    if dtype == int(ncore.NcclDataType.FLOAT32):
        data = struct.pack("<f", s)
    elif dtype == int(ncore.NcclDataType.FLOAT64):
        data = struct.pack("<d", s)
    elif dtype in (int(ncore.NcclDataType.INT32), int(ncore.NcclDataType.UINT32)):
        data = struct.pack("<i", i32(int(s)))
    elif dtype in (int(ncore.NcclDataType.INT64), int(ncore.NcclDataType.UINT64)):
        data = struct.pack("<q", int(s))
    elif dtype in (int(ncore.NcclDataType.INT8), int(ncore.NcclDataType.UINT8)):
        data = bytes([int(s) & 0xFF])
    else:
        data = struct.pack("<I", int(step.arg("scalar_bits") or "0", 16) & 0xFFFFFFFF)[:2]
    return data + bytes(8 - len(data))


def op_create_pre_mul_sum(r: Runner, step: Step) -> None:
    dtype = op_dtype(step)
    host = np.frombuffer(bytearray(_scalar_bytes(step, dtype)), dtype=np.uint8)
    device = step.arg("residence") == "device"
    where = host.ctypes.data
    if device:
        # Lives as long as the process (the operator reads it at each use).
        where = raw.ncore_mem_alloc(8, r.backend)
        raw.ncore_memcpy(where, host.ctypes.data, 8, MEMCPY_HOST_TO_DEVICE, None, r.backend)
        raw.ncore_stream_synchronize(None, r.backend)
    residence = raw.NCORE_SCALAR_DEVICE if device else raw.NCORE_SCALAR_HOST_IMMEDIATE
    handle = raw.ncore_create_pre_mul_sum(r.comm(step), where if step.arg("scalar") else 0,
                                          dtype, residence)
    obj = r.put(step.arg("as"), Obj(CUSTOM_REDOP, handle=handle))
    try:  # remembered so a closed operator can still be named
        obj.bytes = raw.ncore_custom_redop_value(handle)
    except ncore.NcclError:
        obj.bytes = 0


def op_custom_redop_query(r: Runner, step: Step) -> int:
    return raw.ncore_custom_redop_dtype(r.handle(step.arg("handle")))


_REQUIREMENT_FIELDS = ("lsa_multimem", "barrier_count", "lsa_barrier_count",
                       "gin_force_enable", "gin_signal_count", "gin_counter_count",
                       "gin_connection_type")


def op_create_dev_comm(r: Runner, step: Step) -> None:
    text = step.arg("requirements")
    requirements = None
    if text is not None and text != "null":
        requirements = raw.ncore_dev_comm_requirements_t()
        raw.ncore_dev_comm_requirements_init(requirements)
        size = object_field(text, "struct_size")
        if size is not None:
            requirements.struct_size = u32(parse_int(size))
        for name in _REQUIREMENT_FIELDS:
            value = object_field(text, name)
            if value is not None:
                setattr(requirements, name, i32(parse_int(value)))
    handle = raw.ncore_create_dev_comm(r.comm(step), requirements)
    r.put(step.arg("as"), Obj(DEV_COMM, handle=handle))


def op_dev_comm_info(r: Runner, step: Step) -> int:
    info = raw.ncore_dev_comm_info_t()
    info.struct_size = raw.NCORE_SIZEOF_DEV_COMM_INFO
    raw.ncore_dev_comm_info(r.handle(step.arg("handle")), info)
    what = _what(step)
    if what not in ("rank", "nranks", "lsa_rank", "lsa_size", "gin_type", "railed_gin_type"):
        raise UnknownQuery(f"dev_comm_info: what: {what}")
    return int(getattr(info, what))


def op_symmetric_alloc(r: Runner, step: Step) -> None:
    handle = raw.ncore_symmetric_alloc(r.comm(step), u64(step.int("size")))
    r.put(step.arg("as"), Obj(SYMMETRIC, handle=handle))


def op_symmetric_query(r: Runner, step: Step) -> int:
    h = r.handle(step.arg("sym"))
    if _what(step) == "size":
        return raw.ncore_symmetric_size(h)
    return int(raw.ncore_symmetric_peer_pointer(h, i32(step.int("pe"))) == 0)


def op_split(r: Runner, step: Step) -> None:
    handle = raw.ncore_comm_split(r.comm(step), i32(step.int("color")), i32(step.int("key")),
                                  None)
    r.put(step.arg("as"), Obj(COMM, handle=handle))


def op_shrink(r: Runner, step: Step) -> None:
    text = step.arg("exclude") or ""
    exclude = [i32(parse_int(t)) for t in text.split(",") if t][:64]
    handle = raw.ncore_comm_shrink(r.comm(step), exclude, None, u32(step.int("flags")))
    r.put(step.arg("as"), Obj(COMM, handle=handle))


def op_lifecycle(r: Runner, step: Step) -> None:
    call = {"finalize": raw.ncore_comm_finalize, "abort": raw.ncore_comm_abort,
            "destroy": raw.ncore_comm_destroy}[step.op]
    call(r.comm(step))


def op_group(r: Runner, step: Step) -> None:
    if step.op == "group_start":
        raw.ncore_group_start()
    else:
        raw.ncore_group_end()


def op_mem(r: Runner, step: Step) -> None:
    if step.op == "mem_alloc":
        ptr = raw.ncore_mem_alloc(u64(step.int("size")), r.backend)
        r.put(step.arg("as"), Obj(MEMORY, ptr=ptr))
        return
    obj = r.get(step.arg("ptr"))
    raw.ncore_mem_free(obj.ptr if obj is not None else 0, r.backend)


def op_dtype_size(r: Runner, step: Step) -> int:
    return raw.ncore_dtype_size(op_dtype(step))


def op_sleep(r: Runner, step: Step) -> None:
    time.sleep(step.int("ms") / 1000)


def op_die(r: Runner, step: Step) -> None:
    sys.stdout.flush()
    os._exit(0)
