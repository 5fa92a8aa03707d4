"""Conformance runner (Python): steps that move data -- buffers, checks,
p2p, collectives, one-sided and symmetric operations. Each mirrors the C
runner's step (runners/c/ops_data.c) through the binding's raw layer
(ncore.raw), so the C library sees exactly the arguments C passes; a failing
call raises the package's NcclError, whose status and message the runner
prints."""

from __future__ import annotations

import sys
from typing import Optional

import numpy as np

import ncore
from ncore import raw

import op_table
from plan import Step, object_field, parse_int
from state import BUFFER, Obj, Runner, i32, u32, u64

DTYPE_NAMES = ("int8", "uint8", "int32", "uint32", "int64", "uint64", "float16",
               "float32", "float64", "bfloat16", "float8_e4m3", "float8_e5m2")
# NumPy types iota fills (the C runner defines iota for these only).
IOTA_TYPES = {0: np.int8, 1: np.uint8, 2: np.int32, 3: np.uint32, 4: np.int64,
              5: np.uint64, 7: np.float32, 8: np.float64}
MEMCPY_HOST_TO_DEVICE, MEMCPY_DEVICE_TO_HOST, MEMCPY_HOST_TO_HOST = 1, 2, 4


def op_dtype(step: Step, key: str = "dtype") -> int:
    """A dtype argument: a name, raw:N, or float32 when absent."""
    name = step.arg(key)
    if name is None:
        return int(ncore.NcclDataType.FLOAT32)
    if name in DTYPE_NAMES:
        return DTYPE_NAMES.index(name)
    if name.startswith("raw:"):
        return parse_int(name[4:])
    sys.exit(f"conformance: unknown dtype {name}")


def dtype_bytes(dtype: int) -> int:
    """Element size, 1 for an invalid dtype (as the C runner)."""
    try:
        return raw.ncore_dtype_size(dtype)
    except ncore.NcclError:
        return 1


def _hex_bytes(text: str, nbytes: int) -> bytes:
    data = bytes.fromhex(text[: 2 * (len(text) // 2)])[:nbytes]
    return data + bytes(nbytes - len(data))


def _iota(count: int, dtype: int, spec: str, rank: int) -> bytes:
    parts = [float(p) for p in spec.split(":")] + [0.0, 1.0, 0.0][len(spec.split(":")):]
    start, step, stride = parts[:3]
    if dtype not in IOTA_TYPES:
        sys.exit(f"conformance: iota is not defined for dtype {dtype}")
    values = start + step * np.arange(count, dtype=np.float64) + stride * rank
    return values.astype(IOTA_TYPES[dtype]).tobytes()


def fill_init(count: int, dtype: int, init: Optional[str], rank: int) -> bytes:
    """The init pattern of a buffer, as host bytes."""
    nbytes = count * dtype_bytes(dtype)
    if init is None or init == "zero":
        return bytes(nbytes)
    if init.startswith("iota:"):
        return _iota(count, dtype, init[5:], rank)
    if init.startswith("hex:"):
        return _hex_bytes(init[4:], nbytes)
    if init.startswith("rankhex:"):
        parts = init[8:].split("/")
        return _hex_bytes(parts[rank] if rank < len(parts) else "", nbytes)
    sys.exit(f"conformance: unknown init {init}")


def op_buffer(r: Runner, step: Step) -> None:
    dtype = op_dtype(step)
    count = u64(step.int("count"))
    nbytes = count * dtype_bytes(dtype)
    host = np.frombuffer(bytearray(fill_init(count, dtype, step.arg("init"), r.rank))
                         or bytearray(1), dtype=np.uint8)
    obj = r.put(step.arg("name"), Obj(BUFFER, bytes=nbytes, dtype=dtype))
    if step.arg("memory") == "plain":
        obj.plain, obj.owner, obj.ptr = True, host, host.ctypes.data
        return None
    # Communication memory through the package (ncore_mem_alloc), owned by
    # the object table for the rest of the plan.
    obj.owner = ncore.MemoryAllocation(nbytes or 1, r.backend)
    obj.ptr = obj.owner.ptr
    raw.ncore_memcpy(obj.ptr, host.ctypes.data, nbytes, MEMCPY_HOST_TO_DEVICE, None, r.backend)
    raw.ncore_stream_synchronize(None, r.backend)
    return None


def op_check(r: Runner, step: Step) -> str:
    obj = r.get(step.arg("buffer"))
    if obj is None:
        raise ncore.NcclInternalError("check: unknown buffer")
    elem = dtype_bytes(obj.dtype)
    offset = step.int("offset") * elem
    nbytes = step.int("count") * elem if step.arg("count") is not None else obj.bytes - offset
    host = np.zeros(max(nbytes, 1), dtype=np.uint8)
    raw.ncore_stream_synchronize(None, r.backend)
    raw.ncore_memcpy(host.ctypes.data, obj.ptr + offset, nbytes,
                     MEMCPY_HOST_TO_HOST if obj.plain else MEMCPY_DEVICE_TO_HOST,
                     None, r.backend)
    raw.ncore_stream_synchronize(None, r.backend)
    return host[:nbytes].tobytes().hex()


def op_sync(r: Runner, step: Step) -> None:
    raw.ncore_stream_synchronize(None, r.backend)


def buffer_arg(r: Runner, step: Step, key: str, offset_key: Optional[str] = None) -> int:
    """A buffer argument's address, element offsets applied; 0 for "null"."""
    obj = r.get(step.arg(key))
    if obj is None:
        return 0
    offset = step.int("offset")
    if offset_key is not None:
        offset += step.int(offset_key) * r.rank
    return u64(obj.ptr + offset * dtype_bytes(obj.dtype))


def redop_arg(r: Runner, step: Step) -> int:
    """A redop argument: a built-in name, raw:N, or custom:NAME (the value the
    operator had when made, so that a closed one can still be named)."""
    name = step.arg("redop")
    builtin = {None: 0, "sum": 0, "prod": 1, "max": 2, "min": 3, "avg": 4}
    if name in builtin:
        return builtin[name]
    if name.startswith("raw:"):
        return i32(parse_int(name[4:]))
    if name.startswith("custom:"):
        obj = r.get(name[7:])
        return obj.bytes if obj is not None else -1
    sys.exit(f"conformance: unknown op {name}")


def op_p2p(r: Runner, step: Step) -> None:
    """send, recv: every point-to-point row of core/op_table.h."""
    call = getattr(raw, "ncore_" + step.op)
    call(r.comm(step), buffer_arg(r, step, "buffer"), u64(step.int("count")),
         op_dtype(step), i32(step.int("peer")), r.stream)


def op_collective(r: Runner, step: Step) -> None:
    """Every collective row of core/op_table.h: (comm, send, recv, count,
    dtype), then the operator where it reduces, the root where it is
    rooted (op_table.py, generated from the table)."""
    comm = r.comm(step)
    send = buffer_arg(r, step, "send", "send_offset_per_rank")
    recv = buffer_arg(r, step, "recv", "recv_offset_per_rank")
    count, dtype, root = u64(step.int("count")), op_dtype(step), i32(step.int("root"))
    reduces, rooted = op_table.COLLECTIVES[step.op]
    extra = ([redop_arg(r, step)] if reduces else []) + ([root] if rooted else [])
    config = coll_config_arg(step)
    if config is None:
        getattr(raw, "ncore_" + step.op)(comm, send, recv, count, dtype, *extra, r.stream)
    else:
        getattr(raw, "ncore_" + step.op + "_config")(comm, send, recv, count, dtype, *extra,
                                                     r.stream, config)


def coll_config_arg(step: Step):
    """A collective step's `config` object as ncore.i's config tuple (the
    fields of ncore_coll_config_t, NCORE_COLL_CONFIG_INIT's values where the
    object has none), or None without one."""
    text = step.arg("config")
    if text is None or text == "null":
        return None
    undef = raw.NCORE_CONFIG_UNDEF_INT

    def field(name, default):
        value = object_field(text, name)
        return default if value is None else parse_int(value)
    return (field("min_ctas", undef), field("max_ctas", undef), field("nvls_ctas", undef),
            field("cga_cluster_size", undef), object_field(text, "alg_selection"),
            field("force_alg_selection", 1), field("cta_policy", undef),
            field("user_profiler_tag", 0), (), field("launch_completion_event", 0))


def op_signal(r: Runner, step: Step) -> None:
    raw.ncore_signal(r.comm(step), i32(step.int("peer")), i32(step.int("signal_index")),
                     i32(step.int("context")), u32(step.int("flags")), r.stream)


def op_wait_signal(r: Runner, step: Step) -> None:
    struct_size = u32(step.int("struct_size", raw.NCORE_SIZEOF_WAIT_SIGNAL_DESC))
    descs = []
    for text in [t for t in (step.arg("descs") or "").split(";") if t][:32]:
        fields = [0, 1, 0, 0]  # NCORE_WAIT_SIGNAL_DESC_INIT
        for i, name in enumerate(("peer", "op_count", "signal_index", "context")):
            value = object_field(text, name)
            if value is not None:
                fields[i] = parse_int(value)
        descs.append((*fields, struct_size))
    # No descriptor: NULL, as the C runner passes.
    raw.ncore_wait_signal(r.comm(step), descs or None, r.stream)


def op_put_signal(r: Runner, step: Step) -> None:
    raw.ncore_put_signal(r.comm(step), buffer_arg(r, step, "buffer"), u64(step.int("count")),
                         op_dtype(step), i32(step.int("peer")), r.handle(step.arg("window")),
                         u64(step.int("window_offset")), i32(step.int("signal_index")),
                         i32(step.int("context")), u32(step.int("flags")), r.stream)


def op_symmetric_put(r: Runner, step: Step) -> None:
    buf = r.get(step.arg("buffer"))
    raw.ncore_symmetric_put(r.handle(step.arg("sym")), u64(step.int("sym_offset")),
                            buf.ptr if buf is not None else 0, u64(step.int("bytes")),
                            i32(step.int("pe")), r.stream)


def op_symmetric_get(r: Runner, step: Step) -> None:
    buf = r.get(step.arg("buffer"))
    raw.ncore_symmetric_get(buf.ptr if buf is not None else 0, r.handle(step.arg("sym")),
                            u64(step.int("sym_offset")), u64(step.int("bytes")),
                            i32(step.int("pe")), r.stream)
