"""Conformance runner (Python): steps about communicators and resources --
queries, creation, close, is_valid, lifecycle, memory. Each mirrors the C
runner's step (runners/c/ops_handles.c). Queries, close, is_valid, groups
and lifecycle go through the package's objects (Communicator,
RegisteredWindowHandle, ...), which hand the handle to C unchanged; creation
steps go through ncore.raw, since they pass raw arguments (NULL pointers,
sizes that disagree with the buffer, struct_size overrides)."""

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


def _communicator(r: Runner, step: Step) -> Optional["ncore.Communicator"]:
    """The package's Communicator for the step's `comm`, or None for a null
    handle: the package refuses a null communicator itself (nccl.core's
    "not initialized"), so NULL goes to C through ncore.raw to get C's
    status and message."""
    handle = r.comm(step)
    return ncore.Communicator(handle) if handle else None


def op_comm_query(r: Runner, step: Step) -> int:
    comm = _communicator(r, step)
    what = _what(step)
    if comm is None:
        calls = {
            "rank": raw.ncore_comm_rank, "size": raw.ncore_comm_size,
            "device": raw.ncore_comm_device, "lsa_rank": raw.ncore_comm_lsa_rank,
            "lsa_size": raw.ncore_comm_lsa_size, "backend": raw.ncore_comm_backend,
            "async_error": raw.ncore_comm_async_error, "gin_type": raw.ncore_comm_gin_type,
            "railed_gin_type": raw.ncore_comm_railed_gin_type,
        }
        if what not in calls:
            raise UnknownQuery(f"comm_query: what: {what}")
        return int(calls[what](0))
    queries = {
        "rank": lambda: comm.rank, "size": lambda: comm.nranks,
        "device": lambda: comm.device.device_id, "lsa_rank": lambda: comm.lsa_rank,
        "lsa_size": lambda: comm.lsa_size, "backend": lambda: comm.backend,
        # get_async_error answers NCCL's numbering (nccl.core's Result: its
        # Timeout is 8, ncore's 11); the cases compare ncore's status.
        "async_error": lambda: raw.ncore_comm_async_error(comm.ptr),
        "gin_type": lambda: comm.gin_type,
        "railed_gin_type": lambda: comm.railed_gin_type,
    }
    if what in queries:
        return int(queries[what]())
    if what in _PROPERTIES:
        return _property(r.comm(step), what)
    raise UnknownQuery(f"comm_query: what: {what}")


def op_team(r: Runner, step: Step) -> int:
    """team: the world / lsa / rail team, or the one the step gives ("given":
    n_ranks, rank, stride); "what" reads a field or converts team_rank."""
    comm = _communicator(r, step)
    which, what = step.arg("team"), _what(step)
    if which == "given":
        team = ncore.NCCLTeam(step.int("n_ranks"), step.int("rank"), step.int("stride"))
    elif which in ("world", "lsa", "rail") and comm is None:
        getattr(raw, f"ncore_comm_team_{which}")(0)  # raises C's refusal of NULL
        raise UnknownQuery("team: the null communicator answered")
    elif which in ("world", "lsa", "rail", "cft_multimem"):
        team = getattr(comm, f"team_{which}")
    elif which == "cft":
        team = comm.team_cft(step.int("mode"))
    else:
        raise UnknownQuery(f"team: team: {which}")
    if what in ("to_world", "to_lsa") and comm is None:
        call = getattr(raw, f"ncore_comm_team_rank_{what}")
        return int(call(0, (team.n_ranks, team.rank, team.stride), step.int("team_rank")))
    if what in ("n_ranks", "rank", "stride"):
        return int(getattr(team, what))
    if what == "to_world":
        return comm.team_rank_to_world(team, step.int("team_rank"))
    if what == "to_lsa":
        return comm.team_rank_to_lsa(team, step.int("team_rank"))
    raise UnknownQuery(f"team: what: {what}")


# The comm_query values ncore_comm_properties answers (raw layer: the
# versioned output struct as C fills it).
_PROPERTIES = ("nvml_device", "device_api_support", "multimem_support",
               "n_lsa_teams", "host_rma_support", "gin_connection_type",
               "gin_min_stride", "available_gin_types", "dev_comm_runtime_version_size",
               "cft_support", "cft_multicast_support", "cft_counted_support")


def _property(handle: int, what: str) -> int:
    props = raw.ncore_comm_properties_t()
    props.struct_size = raw.NCORE_SIZEOF_COMM_PROPERTIES
    raw.ncore_comm_properties(handle, props)
    return int(getattr(props, what))


def op_comm_control(r: Runner, step: Step) -> None:
    """revoke / suspend (flags) / resume, through the raw layer with the
    step's flags unchanged."""
    handle = r.comm(step)
    if step.op == "revoke":
        raw.ncore_comm_revoke(handle, u32(step.int("flags")))
    elif step.op == "suspend":
        raw.ncore_comm_suspend(handle, u32(step.int("flags")))
    else:
        raw.ncore_comm_resume(handle)


def op_mem_stat(r: Runner, step: Step) -> int:
    return int(raw.ncore_comm_mem_stat(r.comm(step), step.int("stat")))


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


def _resource(r: Runner, name: Optional[str], cls: type) -> "ncore.CommResource":
    """The package's resource object for a named handle (0 for "null" or an
    unknown name): its methods pass the handle to C unchanged, so statuses
    and messages are the C runner's."""
    return cls(r.handle(name))


def op_window_query(r: Runner, step: Step) -> int:
    obj = r.get(step.arg("window"))
    window = ncore.RegisteredWindowHandle(obj.handle if obj is not None else 0)
    peer, offset = i32(step.int("peer")), u64(step.int("offset"))
    what = _what(step)
    if what == "size":
        return window.size
    if what == "peer_size":
        return window.peer_size(peer)
    if what == "flags":
        return int(window.flags)
    if what == "user_pointer_matches":
        return int(window.user_ptr == (obj.ptr if obj is not None else None))
    if what == "peer_pointer_null":
        return int(window.get_peer_device_pointer(peer, offset) is None)
    if what == "lsa_pointer_null":
        return int(window.get_lsa_device_pointer(peer, offset) == 0)
    if what == "multimem_pointer_null":
        return int(window.get_lsa_multimem_device_pointer(offset) is None)
    # CFT logical endpoint addresses: the value is le_offset; cft_le_offset's
    # team is the step's n_ranks, rank, stride and its member `peer`.
    if what == "multimem_le_offset":
        return window.get_multimem_le_info(offset).le_offset
    if what == "peer_le_offset":
        return window.get_peer_le_info(peer, offset).le_offset
    if what == "cft_le_offset":
        team = ncore.NCCLTeam(step.int("n_ranks"), step.int("rank"), step.int("stride"))
        return window.get_cft_le_info(peer, team, offset).le_offset
    raise UnknownQuery(f"window_query: what: {what}")


def op_registered_buffer_query(r: Runner, step: Step) -> int:
    registered = _resource(r, step.arg("handle"), ncore.RegisteredBufferHandle)
    if _what(step) == "size":
        return registered.size
    if _what(step) == "pointer_matches":
        buf = r.get(step.arg("buffer"))
        return int(registered.ptr == (buf.ptr if buf is not None else None))
    raise UnknownQuery(f"registered_buffer_query: what: {_what(step)}")


# Resource classes by kind; an unknown name is treated as a window (as C).
_RESOURCES = {REGISTERED_BUFFER: ncore.RegisteredBufferHandle,
              CUSTOM_REDOP: ncore.CustomRedOp, DEV_COMM: ncore.DevCommResource,
              WINDOW: ncore.RegisteredWindowHandle}


def op_close(r: Runner, step: Step) -> None:
    obj = r.get(step.arg("handle"))
    kind = obj.kind if obj is not None else WINDOW
    handle = obj.handle if obj is not None else 0
    if kind == SYMMETRIC:
        raw.ncore_symmetric_free(handle)
    elif kind == COMM:
        # Communicator.destroy skips a null handle; C must see it.
        raw.ncore_comm_destroy(handle)
    else:
        _RESOURCES.get(kind, ncore.RegisteredWindowHandle)(handle).close()


def op_is_valid(r: Runner, step: Step) -> int:
    obj = r.get(step.arg("handle"))
    kind = obj.kind if obj is not None else WINDOW
    handle = obj.handle if obj is not None else 0
    if kind == SYMMETRIC:
        return raw.ncore_symmetric_is_valid(handle)
    if kind == COMM:
        return raw.ncore_comm_is_valid(handle)
    return int(_RESOURCES.get(kind, ncore.RegisteredWindowHandle)(handle).is_valid)


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
        # Read at every use of the operator: freed with the case, under a
        # name no plan can spell (plans have no spaces).
        where = raw.ncore_mem_alloc(8, r.backend)
        r.put(" scalar", Obj(MEMORY, ptr=where))
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
    return int(_resource(r, step.arg("handle"), ncore.CustomRedOp).dtype)


_REQUIREMENT_FIELDS = ("lsa_multimem", "barrier_count", "lsa_barrier_count",
                       "gin_force_enable", "gin_signal_count", "gin_counter_count",
                       "gin_connection_type", "gin_custom_stride", "cft_caps",
                       "cft_barrier_count")


def _named_team(r: Runner, step: Step, which: str) -> ncore.NCCLTeam:
    """world, lsa, rail, or outside (the world team with one member more
    than the communicator has)."""
    comm = r.comm(step)
    if which in ("lsa", "rail"):
        fn = raw.ncore_comm_team_lsa if which == "lsa" else raw.ncore_comm_team_rail
        return ncore.NCCLTeam(*fn(comm))
    n_ranks, rank, stride = raw.ncore_comm_team_world(comm)
    return ncore.NCCLTeam(n_ranks + (which == "outside"), rank, stride)


def _requirement_lists(r: Runner, step: Step, text: str) -> tuple:
    """The requirements' one team requirement and one resource requirement
    at most, as nccl4py's classes."""
    def number(name: str) -> int:
        value = object_field(text, name)
        return 0 if value is None else parse_int(value)
    teams, resources = (), ()
    which = object_field(text, "team_requirement")
    if which is not None:
        teams = (ncore.TeamRequirement(_named_team(r, step, which),
                                       multimem=bool(number("team_multimem"))),)
    kind = object_field(text, "resource")
    if kind == "ll_a2a":
        resources = (ncore.LLA2ARequirement(number("n_blocks"), number("max_elements"),
                                            number("max_element_size")),)
    elif kind is not None:
        team = _named_team(r, step, object_field(text, "resource_team") or "lsa")
        cls = ncore.LsaBarrierRequirement if kind == "lsa_barrier" else ncore.GinBarrierRequirement
        resources = (cls(team, number("n_barriers")),)
    return teams, resources


def op_create_dev_comm(r: Runner, step: Step) -> None:
    text = step.arg("requirements")
    requirements = None
    if text is not None and text != "null":
        teams, resources = _requirement_lists(r, step, text)
        requirements = ncore.NCCLDevCommRequirements(teams=teams, resources=resources).to_c()
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
    info = _resource(r, step.arg("handle"), ncore.DevCommResource).info
    what = _what(step)
    if what not in ("rank", "nranks", "lsa_rank", "lsa_size", "gin_type", "railed_gin_type",
                    "resource_count"):
        raise UnknownQuery(f"dev_comm_info: what: {what}")
    return int(getattr(info, what))


def op_dev_comm_resource_handle(r: Runner, step: Step) -> int:
    """The raw call: nccl4py's resource_handles is a tuple, and the case
    asks for the library's answer to an index out of range."""
    what = _what(step)
    if what not in ("kind", "n_barriers", "has_slots"):
        raise UnknownQuery(f"dev_comm_resource_handle: what: {what}")
    c = raw.ncore_dev_resource_handle_t()
    c.struct_size = raw.NCORE_SIZEOF_DEV_RESOURCE_HANDLE
    raw.ncore_dev_comm_resource_handle(r.handle(step.arg("handle")), i32(step.int("index")), c)
    return int(c.n_slots > 0) if what == "has_slots" else int(getattr(c, what))


def op_dev_comm_multimem_handle(r: Runner, step: Step) -> int:
    """The raw call: nccl4py answers a team not asked for with KeyError,
    the case with the library's status."""
    if _what(step) != "base_null":
        raise UnknownQuery(f"dev_comm_multimem_handle: what: {_what(step)}")
    team = _named_team(r, step, step.arg("team") or "world")
    c = raw.ncore_multimem_handle_t()
    c.struct_size = raw.NCORE_SIZEOF_MULTIMEM_HANDLE
    raw.ncore_dev_comm_multimem_handle(r.handle(step.arg("handle")),
                                       (team.n_ranks, team.rank, team.stride), c)
    return int(c.mc_base_pointer == 0)


def op_symmetric_alloc(r: Runner, step: Step) -> None:
    handle = raw.ncore_symmetric_alloc(r.comm(step), u64(step.int("size")))
    r.put(step.arg("as"), Obj(SYMMETRIC, handle=handle))


def op_symmetric_query(r: Runner, step: Step) -> int:
    h = r.handle(step.arg("sym"))
    if _what(step) == "size":
        return raw.ncore_symmetric_size(h)
    return int(raw.ncore_symmetric_peer_pointer(h, i32(step.int("pe"))) == 0)


def op_split(r: Runner, step: Step) -> None:
    """The parent's config, or with blocking=0 a non-blocking child with the
    case's timeout (NCORE_IN_PROGRESS is a success: the child still
    initialises; settle waits for it)."""
    config = None
    if step.arg("blocking") is not None and step.int("blocking") == 0:
        config = ncore.NCCLConfig(blocking=False, timeout=r.timeout_ms / 1000,
                                  device=r.device).to_c()
    handle = raw.ncore_comm_split(r.comm(step), i32(step.int("color")), i32(step.int("key")),
                                  config)
    r.put(step.arg("as"), Obj(COMM, handle=handle))


class StepStatus(Exception):
    """A step whose status is a value it read, not a failed call's (settle)."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status, self.message = status, ""


def op_settle(r: Runner, step: Step) -> None:
    """Polls the communicator's asynchronous state until it is not
    NCORE_IN_PROGRESS (at most the case's timeout); the state is the step's
    status."""
    deadline = time.monotonic() + r.timeout_ms / 1000
    state = raw.ncore_comm_async_error(r.comm(step))
    while state == raw.NCORE_IN_PROGRESS and time.monotonic() < deadline:
        time.sleep(0.001)
        state = raw.ncore_comm_async_error(r.comm(step))
    if state != raw.NCORE_OK:
        raise StepStatus(state)


def op_shrink(r: Runner, step: Step) -> None:
    text = step.arg("exclude") or ""
    exclude = [i32(parse_int(t)) for t in text.split(",") if t][:64]
    handle = raw.ncore_comm_shrink(r.comm(step), exclude, None, u32(step.int("flags")))
    r.put(step.arg("as"), Obj(COMM, handle=handle))


def op_lifecycle(r: Runner, step: Step) -> None:
    comm = _communicator(r, step)
    if comm is None:
        call = {"finalize": raw.ncore_comm_finalize, "abort": raw.ncore_comm_abort,
                "destroy": raw.ncore_comm_destroy}[step.op]
        call(0)
    elif step.op == "finalize":
        comm.finalize()
    elif step.op == "abort":
        comm.abort()
    else:
        comm.destroy()


def op_synchronize(r: Runner, step: Step) -> None:
    comm = _communicator(r, step)
    if comm is None:
        raw.ncore_comm_synchronize(0, r.stream)
    else:
        comm.synchronize(r.stream)


def op_group(r: Runner, step: Step) -> None:
    if step.op == "group_start":
        ncore.group_start()
    else:
        ncore.group_end()


def op_mem(r: Runner, step: Step) -> None:
    """mem_alloc through the package (ncore.mem_alloc, as the Go and Rust
    runners allocate through theirs: the size it refuses is the binding's
    answer); mem_free through the package for memory it holds, else (a
    second free, NULL) through the raw layer, which passes what only C
    expresses."""
    if step.op == "mem_alloc":
        memory = ncore.mem_alloc(step.int("size"), backend=r.backend)
        r.put(step.arg("as"), Obj(MEMORY, ptr=memory.ptr, owner=memory))
        return
    obj = r.get(step.arg("ptr"))
    if obj is not None and not obj.freed and isinstance(obj.owner, ncore.MemoryAllocation):
        ncore.mem_free(obj.owner)
    else:
        raw.ncore_mem_free(obj.ptr if obj is not None else 0, r.backend)
    if obj is not None:
        obj.freed = True


def op_dtype_size(r: Runner, step: Step) -> int:
    return raw.ncore_dtype_size(op_dtype(step))


def op_library_info(r: Runner, step: Step):
    """ncore.get_library_info(); backend_reason as the hex of its bytes (the
    value channel of text), features masked by `mask` (default: all bits)."""
    info = ncore.get_library_info()
    what = _what(step)
    if what == "version_matches":
        return int(info.version == raw.ncore_version_string())
    if what == "backend":
        return int(info.backend)
    if what == "features":
        return int(info.features) & (step.int("mask", -1) & 0xFFFFFFFF)
    if what == "backend_reason":
        return info.backend_reason.encode().hex()
    raise UnknownQuery(f"library_info: what: {what}")


def op_param(r: Runner, step: Step):
    """param: ncore.params[key] as the hex of its text, or (what "listed")
    1 if iterating ncore.params names key. A missing key is C's refusal."""
    key = step.arg("key")
    if _what(step) == "listed":
        return int(key in list(ncore.params))
    raw.ncore_param_get(key, 0)  # a missing key raises C's status and message
    return ncore.params[key].encode("utf-8", "surrogateescape").hex()


def op_sleep(r: Runner, step: Step) -> None:
    time.sleep(step.int("ms") / 1000)


def op_die(r: Runner, step: Step) -> None:
    sys.stdout.flush()
    os._exit(0)
