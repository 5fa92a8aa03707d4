#!/usr/bin/env python3
"""Writes the generated conformance cases into conformance/cases/.

The cases are data: each file stands alone, and a new case is one new JSON
file (written by hand or added here). This script only saves typing for the
families that repeat over data types and collectives, and computes their
expected bytes (float16 through numpy; bfloat16 and the float8 types from
exact small values). Run: /usr/bin/python3 conformance/tools/make_cases.py

The collectives' cases (one per collective and dtype, and each one's
in-place form) come from the table of operations (core/op_table.h, as
conformance/driver/op_table.py): a collective added there gets its cases,
their expected results computed from its row.

Calls that need a peer in the caller's LSA team (one-sided calls, symmetric
put/get, peer pointers) and device communicators carry what they give when the
peer is outside it (`expect_unreachable`, `expect_lsa_split`: README.md), so
that every case also runs, and asserts, on a topology of several LSA teams
(NCCL ranks oversubscribed on one GPU: each rank is its own team).
"""
import json
import os
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from driver import op_table  # noqa: E402  (the table of operations, generated from core/op_table.h)

CASES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "cases")
# Marks the cases this script writes: it replaces only those, and leaves the
# hand-written ones alone.
GENERATOR = "conformance/tools/make_cases.py"
ALL_DTYPES = ["int8", "uint8", "int32", "uint32", "int64", "uint64", "float16",
              "float32", "float64", "bfloat16", "float8_e4m3", "float8_e5m2"]
# What a call to a peer outside the caller's LSA team gives (no GIN).
UNREACHABLE = {"status": "NCORE_ERR_NOT_SUPPORTED", "message_contains": "LSA team"}
# A device communicator over several LSA teams needs GIN.
NEEDS_GIN = {"status": "NCORE_ERR_NOT_SUPPORTED", "message_contains": "GIN"}
# A step on an object that was never made: the runners pass the null handle
# for a name no step made.
NULL_HANDLE = {"status": "NCORE_ERR_INVALID_ARGUMENT", "message_contains": "is NCORE_NULL_HANDLE"}
# A peer that died or aborted, seen by a call or, on NCCL, while waiting.
REMOTE = {"status": ["NCORE_ERR_REMOTE", "NCORE_ERR_TIMEOUT"]}
FMT = {"int8": "b", "uint8": "B", "int32": "i", "uint32": "I", "int64": "q",
       "uint64": "Q", "float32": "f", "float64": "d"}


def fp8_bits(value, exponent_bits, mantissa_bits):
    """Bits of an exactly representable small value in an fp8 format."""
    if value == 0:
        return 0
    bias = (1 << (exponent_bits - 1)) - 1
    sign = 0x80 if value < 0 else 0
    value = abs(value)
    exponent = int(np.floor(np.log2(value)))
    mantissa = value / 2.0 ** exponent - 1.0
    m = mantissa * (1 << mantissa_bits)
    assert m == int(m), f"{value} is not exact in this fp8 format"
    return sign | ((exponent + bias) << mantissa_bits) | int(m)


def to_hex(dtype, values):
    """Little-endian bytes of values in dtype, as hex."""
    if dtype in FMT:
        return struct.pack("<" + FMT[dtype] * len(values), *values).hex()
    if dtype == "float16":
        return np.array(values, dtype="<f2").tobytes().hex()
    if dtype == "bfloat16":
        raw = np.array(values, dtype="<f4").view("<u4") >> 16
        assert all((np.array(values, dtype="<f4").view("<u4") & 0xFFFF) == 0)
        return raw.astype("<u2").tobytes().hex()
    if dtype == "float8_e4m3":
        return bytes(fp8_bits(v, 4, 3) for v in values).hex()
    if dtype == "float8_e5m2":
        return bytes(fp8_bits(v, 5, 2) for v in values).hex()
    raise ValueError(dtype)


def rankhex(dtype, per_rank_values):
    return "rankhex:" + "/".join(to_hex(dtype, v) for v in per_rank_values)


def write(case):
    case.setdefault("timeout_ms", 10000)
    case["generator"] = GENERATOR
    with open(os.path.join(CASES, case["name"] + ".json"), "w") as f:
        json.dump(case, f, indent=1)
        f.write("\n")


def buffer(name, dtype, count, init="zero", **extra):
    step = {"op": "buffer", "name": name, "dtype": dtype, "count": count, "init": init}
    step.update(extra)
    return step


def check(name, dtype, values_per_rank, offset=None, count=None):
    step = {"op": "check", "buffer": name,
            "expect": {"hex": {"per_rank": [to_hex(dtype, v) for v in values_per_rank]}}}
    if offset is not None:
        step["offset"] = offset
    if count is not None:
        step["count"] = count
    return step


def unreachable(step, alternative=UNREACHABLE):
    """The step, expecting `alternative` on a rank whose peer (peer, pe or a
    wait descriptor's peer) is outside its LSA team."""
    return dict(step, expect_unreachable=alternative)


def lsa_split(step, alternative):
    """The step, expecting `alternative` on a rank whose LSA team is smaller
    than the world (for steps without a peer: data a put could not bring,
    a device communicator that needs GIN)."""
    return dict(step, expect_lsa_split=alternative)


def barrier(wait_expect=None):
    """Steps after which every rank has taken part: an allreduce, waited for
    (on NCCL it runs after the call returns). wait_expect: what the wait
    may answer where it is the last step before a peer leaves (a rank done
    with the allreduce may abort or die while another still waits for it,
    which that one may report)."""
    wait = {"op": "synchronize"}
    if wait_expect is not None:
        wait["expect"] = wait_expect
    return [buffer("barrier", "int32", 1),
            {"op": "allreduce", "send": "barrier", "recv": "barrier", "count": 1,
             "dtype": "int32", "redop": "sum"},
            wait]


def connect_pair(wait_expect):
    """Ranks 0 and 1 exchange a message first: NCCL connects point-to-point
    peers inside the first call that needs them, and a connection to a peer
    already gone blocks in NCCL's setup for NCCL's own timeout (ncore/comm.h,
    ncore_comm_abort), which is not what these cases test. wait_expect: as
    barrier's (these cases make a peer leave next)."""
    return [buffer("hello", "int32", 1),
            {"op": "group_start", "ranks": [0, 1]},
            {"op": "send", "ranks": [0, 1], "buffer": "hello", "count": 1, "dtype": "int32",
             "peer": {"per_rank": [1, 0]}},
            {"op": "recv", "ranks": [0, 1], "buffer": "hello", "count": 1, "dtype": "int32",
             "peer": {"per_rank": [1, 0]}},
            {"op": "group_end", "ranks": [0, 1]},
            {"op": "synchronize", "ranks": [0, 1], "expect": wait_expect}]


# ------------------------------------------------------------ collectives

def inputs(dtype, ranks, count):
    """Small exact inputs: rank r, element i -> (r + 1) + (i % 2)."""
    return [[(r + 1) + (i % 2) for i in range(count)] for r in range(ranks)]


def reduce_values(op, columns, ranks):
    if op == "sum":
        return sum(columns)
    if op == "prod":
        out = 1
        for v in columns:
            out *= v
        return out
    if op == "max":
        return max(columns)
    if op == "min":
        return min(columns)
    if op == "avg":
        return sum(columns) / ranks
    raise ValueError(op)


def allreduce_case(dtype, op, ranks, count=4):
    data = inputs(dtype, ranks, count)
    if op == "avg":
        # NCCL averages by scaling each input by 1/n before summing: inputs
        # that are multiples of n keep every step exact for any n.
        data = [[ranks * v for v in row] for row in data]
    if dtype.startswith("float8") and op == "sum":
        # 1s and 2s: every partial sum (whatever order a backend adds in)
        # stays exact in two or three mantissa bits.
        data = [[1 + (r + i) % 2 for i in range(count)] for r in range(ranks)]
    result = [reduce_values(op, [data[r][i] for r in range(ranks)], ranks) for i in range(count)]
    if op == "avg" and dtype in FMT and FMT[dtype] in "bBiIqQ":
        result = [int(sum(data[r][i] for r in range(ranks)) // ranks) for i in range(count)]
    write({"name": f"allreduce_{op}_{dtype}_{ranks}ranks",
           "description": f"allreduce {op.upper()} of {dtype} on {ranks} ranks",
           "ranks": ranks,
           "steps": [buffer("a", dtype, count, rankhex(dtype, data)),
                     buffer("b", dtype, count),
                     {"op": "allreduce", "send": "a", "recv": "b", "count": count,
                      "dtype": dtype, "redop": op},
                     check("b", dtype, [result] * ranks)]})


def send_values(row, rank, length):
    """Small exact values for a rank's sendbuf: (rank + 1) + (i % 2) where
    the collective reduces (every sum stays exact in every dtype, float8 on
    2 ranks included), else 1..8 by rank and position, so that a block in
    the wrong place shows."""
    if row.reduces:
        return [(rank + 1) + (i % 2) for i in range(length)]
    return [1 + (rank * length + i) % 8 for i in range(length)]


def reference(row, ranks, root, count, sent):
    """What rank r's recvbuf holds after collective `row` (core/op_table.h:
    "What it computes follows from the shape"), given each rank's sendbuf
    sent[r]; None where recvbuf is root's only and r is not root."""
    sources = [root] if row.send.root_only else list(range(ranks))
    out = []
    for r in range(ranks):
        if row.recv.root_only and r != root:
            out.append(None)
            continue
        parts = [sent[s][r * count:(r + 1) * count] if row.send.per_rank else sent[s]
                 for s in sources]
        if row.reduces:
            out.append([sum(p[i] for p in parts) for i in range(count)])
        elif row.recv.per_rank:
            out.append([v for p in parts for v in p])
        else:
            out.append(parts[0])
    return out


def collective_step(row, count, dtype, root, **buffers):
    step = {"op": row.name, **buffers, "count": count, "dtype": dtype}
    if row.reduces:
        step["redop"] = "sum"
    if row.rooted:
        step["root"] = root
    return step


def check_results(name, dtype, results, offsets=None, count=None):
    """A check of `name` on the ranks that have a result (results[r] not None),
    at element offsets[r] where given."""
    ranks = [r for r, v in enumerate(results) if v is not None]
    step = check(name, dtype, [v or [] for v in results], count=count)
    if offsets is not None:
        step["offset"] = {"per_rank": offsets}
    if len(ranks) < len(results):
        step["ranks"] = ranks
    return step


def collective_case(row, dtype, ranks, count=3):
    """Collective `row` of the table on `ranks` ranks, checked against the
    table's rule (reference): one case per collective and dtype."""
    root = ranks - 1
    send_len = count * (ranks if row.send.per_rank else 1)
    recv_len = count * (ranks if row.recv.per_rank else 1)
    sent = [send_values(row, r, send_len) for r in range(ranks)]
    results = reference(row, ranks, root, count, sent)
    what = f"{row.name}{' SUM' if row.reduces else ''} of {dtype} on {ranks} ranks"
    write({"name": f"{row.name}_{dtype}_{ranks}ranks", "ranks": ranks,
           "description": what + (f", root {root}" if row.rooted else ""),
           "steps": [buffer("a", dtype, send_len, rankhex(dtype, sent)),
                     buffer("b", dtype, recv_len),
                     collective_step(row, count, dtype, root, send="a", recv="b"),
                     check_results("b", dtype, results)]})


def collective_cases():
    ranks_for = {d: 2 + (i % 3) for i, d in enumerate(ALL_DTYPES)}
    for dtype in ALL_DTYPES:
        allreduce_case(dtype, "sum", ranks_for[dtype])
    for dtype in ["int32", "float32", "float64", "float16", "bfloat16"]:
        for op in ["prod", "max", "min", "avg"]:
            allreduce_case(dtype, op, 3 if op != "prod" else 2)
    # Every collective of the table of operations.
    for row in op_table.COLLECTIVES:
        for dtype in ["int32", "float32", "float16", "bfloat16", "float8_e4m3"]:
            collective_case(row, dtype, 2 if dtype.startswith("float8") else 3)
        collective_case(row, "int64", 4)


def in_place_case(row, dtype="int32", ranks=3, count=2):
    """Collective `row` run in place as its in_place rule says (op_table.h):
    sendbuf == recvbuf; the count buffer as block `rank` of the nranks *
    count one; or refused."""
    root = ranks - 1
    whole = count * ranks
    step = collective_step(row, count, dtype, root, send="a", recv="a")
    if row.in_place == "none":
        step["expect"] = {"status": "NCORE_ERR_INVALID_ARGUMENT",
                          "message_contains": "cannot run in place"}
        write({"name": f"{row.name}_in_place_refused", "ranks": ranks,
               "description": f"{row.name} with sendbuf == recvbuf is refused",
               "steps": [buffer("a", dtype, whole), step]})
        return
    sent = [send_values(row, r, whole if row.send.per_rank else count) for r in range(ranks)]
    results = reference(row, ranks, root, count, sent)
    initial, checked = sent, check_results("a", dtype, results)
    if row.in_place == "same":
        how = "sendbuf == recvbuf"
    elif row.send.per_rank:  # recvbuf is block `rank` of sendbuf
        how = f"recvbuf == sendbuf + rank * {row.count}"
        step["recv_offset_per_rank"] = count
        checked = check_results("a", dtype, results, count=count,
                                offsets=[r * count for r in range(ranks)])
    else:  # sendbuf is block `rank` of recvbuf
        how = f"sendbuf == recvbuf + rank * {row.count}"
        step["send_offset_per_rank"] = count
        initial = [[sent[r][i] if b == r else 0 for b in range(ranks) for i in range(count)]
                   for r in range(ranks)]
    write({"name": f"{row.name}_in_place", "ranks": ranks,
           "description": f"{row.name} with {how}",
           "steps": [buffer("a", dtype, len(initial[0]), rankhex(dtype, initial)), step,
                     checked]})


def in_place_cases():
    for row in op_table.COLLECTIVES:
        in_place_case(row)


def custom_op_cases():
    for residence in ["host", "device"]:
        data = inputs("float32", 2, 4)
        result = [2.0 * (data[0][i] + data[1][i]) for i in range(4)]
        write({"name": f"pre_mul_sum_{residence}_scalar", "ranks": 2,
               "description": f"PreMulSum with a {residence} scalar of 2: 2 * sum",
               "steps": [buffer("a", "float32", 4, rankhex("float32", data)),
                         buffer("b", "float32", 4),
                         {"op": "create_pre_mul_sum", "scalar": 2.0, "dtype": "float32",
                          "residence": residence, "as": "op2"},
                         {"op": "custom_redop_query", "handle": "op2", "what": "dtype",
                          "expect": {"value": 7}},
                         {"op": "allreduce", "send": "a", "recv": "b", "count": 4,
                          "dtype": "float32", "redop": "custom:op2"},
                         check("b", "float32", [result] * 2),
                         {"op": "close", "handle": "op2"},
                         {"op": "is_valid", "handle": "op2", "expect": {"value": 0}}]})
    write({"name": "pre_mul_sum_closed_op", "ranks": 2,
           "description": "a closed custom operator answers NCORE_ERR_CLOSED in a collective",
           "steps": [buffer("a", "float32", 4), buffer("b", "float32", 4),
                     {"op": "create_pre_mul_sum", "scalar": 2.0, "dtype": "float32",
                      "residence": "host", "as": "op2"},
                     {"op": "close", "handle": "op2"},
                     {"op": "close", "handle": "op2"},
                     {"op": "allreduce", "send": "a", "recv": "b", "count": 4, "dtype": "float32",
                      "redop": "custom:op2", "expect": {"status": "NCORE_ERR_CLOSED",
                                                      "message_contains": "op"}},
                     {"op": "custom_redop_query", "handle": "op2", "what": "dtype",
                      "expect": {"status": "NCORE_ERR_CLOSED"}}]})
    write({"name": "pre_mul_sum_wrong_dtype", "ranks": 2,
           "description": "a custom operator used with another dtype is rejected",
           "steps": [buffer("a", "float64", 4), buffer("b", "float64", 4),
                     {"op": "create_pre_mul_sum", "scalar": 2.0, "dtype": "float32",
                      "residence": "host", "as": "op2"},
                     {"op": "allreduce", "send": "a", "recv": "b", "count": 4, "dtype": "float64",
                      "redop": "custom:op2", "expect": {"status": "NCORE_ERR_INVALID_ARGUMENT",
                                                      "message_contains": "op"}}]})
    write({"name": "pre_mul_sum_null_scalar", "ranks": 2,
           "description": "PreMulSum without a scalar is rejected",
           "steps": [{"op": "create_pre_mul_sum", "dtype": "float32", "residence": "host",
                      "as": "op2", "expect": {"status": "NCORE_ERR_INVALID_ARGUMENT",
                                              "message_contains": "scalar"}}]})


def collective_error_cases():
    bad = [
        ("allreduce_null_sendbuf", {"op": "allreduce", "send": "null", "recv": "b", "count": 4,
                                    "dtype": "int32", "redop": "sum"}, "sendbuf"),
        ("allreduce_bad_dtype", {"op": "allreduce", "send": "a", "recv": "b", "count": 4,
                                 "dtype": "raw:99"}, "dtype"),
        ("allreduce_bad_op", {"op": "allreduce", "send": "a", "recv": "b", "count": 4,
                              "dtype": "int32", "redop": "raw:77"}, "op"),
        ("broadcast_root_out_of_range", {"op": "broadcast", "send": "a", "recv": "b", "count": 4,
                                         "dtype": "int32", "root": 5}, "root"),
        ("reduce_negative_root", {"op": "reduce", "send": "a", "recv": "b", "count": 4,
                                  "dtype": "int32", "root": -1}, "root"),
        ("allgather_null_recvbuf", {"op": "allgather", "send": "a", "recv": "null", "count": 2,
                                    "dtype": "int32"}, "recvbuf"),
        ("allreduce_null_comm", {"op": "allreduce", "comm": "null", "send": "a", "recv": "b",
                                 "count": 4, "dtype": "int32"}, "comm"),
    ]
    for name, step, argument in bad:
        step["expect"] = {"status": "NCORE_ERR_INVALID_ARGUMENT", "message_contains": argument}
        write({"name": name, "ranks": 2,
               "description": f"{step['op']} rejects a bad {argument}",
               "steps": [buffer("a", "int32", 8), buffer("b", "int32", 8), step]})
    write({"name": "collective_count_mismatch", "ranks": 2, "backends": ["host"],
           "description": "ranks that disagree on the count get NCORE_ERR_INVALID_USAGE "
                          "(host only: NCCL does not compare counts across ranks; a mismatch "
                          "is undefined behaviour there)",
           "steps": [buffer("a", "int32", 8), buffer("b", "int32", 8),
                     {"op": "allreduce", "send": "a", "recv": "b", "count": {"per_rank": [4, 8]},
                      "dtype": "int32", "redop": "sum",
                      "expect": {"status": "NCORE_ERR_INVALID_USAGE", "message_contains": "count"}}]})


# ------------------------------------------------------------ p2p

def p2p_cases():
    ring = {"name": "send_recv_ring_4ranks", "ranks": 4,
            "description": "each rank sends to the next and receives from the previous, in a group",
            "steps": [buffer("s", "int32", 4, "iota:0:1:100"), buffer("r", "int32", 4),
                      {"op": "group_start"},
                      {"op": "send", "buffer": "s", "count": 4, "dtype": "int32",
                       "peer": {"per_rank": [1, 2, 3, 0]}},
                      {"op": "recv", "buffer": "r", "count": 4, "dtype": "int32",
                       "peer": {"per_rank": [3, 0, 1, 2]}},
                      {"op": "group_end"},
                      check("r", "int32", [[100 * ((r - 1) % 4) + i for i in range(4)]
                                           for r in range(4)])]}
    write(ring)
    write({"name": "send_recv_pair_ordered", "ranks": 2,
           "description": "two messages between a pair arrive in order (no group needed)",
           "steps": [buffer("x", "int64", 2, "iota:1:1:0"), buffer("y", "int64", 2, "iota:7:1:0"),
                     buffer("r1", "int64", 2), buffer("r2", "int64", 2),
                     {"op": "send", "ranks": [0], "buffer": "x", "count": 2, "dtype": "int64", "peer": 1},
                     {"op": "send", "ranks": [0], "buffer": "y", "count": 2, "dtype": "int64", "peer": 1},
                     {"op": "recv", "ranks": [1], "buffer": "r1", "count": 2, "dtype": "int64", "peer": 0},
                     {"op": "recv", "ranks": [1], "buffer": "r2", "count": 2, "dtype": "int64", "peer": 0},
                     dict(check("r1", "int64", [[], [1, 2]]), ranks=[1]),
                     dict(check("r2", "int64", [[], [7, 8]]), ranks=[1])]})
    count = 1 << 20  # 4 MiB of int32: more than one ring's worth
    write({"name": "sendrecv_large_both_ways", "ranks": 2,
           "description": "4 MiB exchanged both ways inside one group does not deadlock",
           "steps": [buffer("s", "int32", count, "iota:0:1:1000000"), buffer("r", "int32", count),
                     {"op": "group_start"},
                     {"op": "send", "buffer": "s", "count": count, "dtype": "int32",
                      "peer": {"per_rank": [1, 0]}},
                     {"op": "recv", "buffer": "r", "count": count, "dtype": "int32",
                      "peer": {"per_rank": [1, 0]}},
                     {"op": "group_end"},
                     {"op": "check", "buffer": "r", "offset": count - 2, "count": 2,
                      "expect": {"hex": {"per_rank": [to_hex("int32", [1000000 + count - 2, 1000000 + count - 1]),
                                                      to_hex("int32", [count - 2, count - 1])]}}}]})
    write({"name": "send_recv_self_in_group", "ranks": 2,
           "description": "a rank can send to itself inside a group",
           "steps": [buffer("s", "uint8", 3, "iota:5:1:10"), buffer("r", "uint8", 3),
                     {"op": "group_start"},
                     {"op": "send", "buffer": "s", "count": 3, "dtype": "uint8", "peer": {"per_rank": [0, 1]}},
                     {"op": "recv", "buffer": "r", "count": 3, "dtype": "uint8", "peer": {"per_rank": [0, 1]}},
                     {"op": "group_end"},
                     check("r", "uint8", [[5, 6, 7], [15, 16, 17]])]})
    write({"name": "send_recv_size_mismatch", "ranks": 2, "backends": ["host"],
           "description": "a recv larger than the matching send fails with NCORE_ERR_INVALID_USAGE "
                          "(host only: NCCL does not compare a recv with the matching send's "
                          "size)",
           "steps": [buffer("s", "int32", 8), buffer("r", "int32", 8),
                     {"op": "send", "ranks": [0], "buffer": "s", "count": 4, "dtype": "int32", "peer": 1},
                     {"op": "recv", "ranks": [1], "buffer": "r", "count": 8, "dtype": "int32", "peer": 0,
                      "expect": {"status": "NCORE_ERR_INVALID_USAGE"}}]})
    for name, step, argument in [
        ("send_peer_out_of_range", {"op": "send", "buffer": "s", "count": 1, "dtype": "int32", "peer": 2}, "peer"),
        ("recv_negative_peer", {"op": "recv", "buffer": "s", "count": 1, "dtype": "int32", "peer": -1}, "peer"),
        ("send_null_buffer", {"op": "send", "buffer": "null", "count": 1, "dtype": "int32", "peer": 1}, "buf"),
        ("send_bad_dtype", {"op": "send", "buffer": "s", "count": 1, "dtype": "raw:12", "peer": 1}, "dtype"),
        ("send_null_comm", {"op": "send", "comm": "null", "buffer": "s", "count": 1, "dtype": "int32", "peer": 1}, "comm"),
    ]:
        step["expect"] = {"status": "NCORE_ERR_INVALID_ARGUMENT", "message_contains": argument}
        write({"name": name, "ranks": 2, "description": f"{step['op']} rejects a bad {argument}",
               "steps": [buffer("s", "int32", 4), step]})
    write({"name": "send_zero_count_null_buffer", "ranks": 2,
           "description": "a zero-element send and recv may pass NULL",
           "steps": [{"op": "group_start"},
                     {"op": "send", "buffer": "null", "count": 0, "dtype": "int32", "peer": {"per_rank": [1, 0]}},
                     {"op": "recv", "buffer": "null", "count": 0, "dtype": "int32", "peer": {"per_rank": [1, 0]}},
                     {"op": "group_end"}]})
    write({"name": "group_end_without_start", "ranks": 2,
           "description": "group_end without group_start is NCORE_ERR_INVALID_USAGE",
           "steps": [{"op": "group_end", "expect": {"status": "NCORE_ERR_INVALID_USAGE"}}]})


# ------------------------------------------------------------ communicators

def comm_cases():
    ranks = 3
    queries = [("rank", list(range(ranks))), ("size", [ranks] * ranks),
               ("lsa_size", [ranks] * ranks), ("gin_type", [0] * ranks),
               ("railed_gin_type", [0] * ranks), ("async_error", [0] * ranks)]
    steps = [{"op": "comm_query", "what": what, "expect": {"value_per_rank": values}}
             for what, values in queries]
    # Several LSA teams: the size of this rank's, as its header reports it.
    steps[2] = lsa_split(steps[2], {"value": {"header": "lsa_size"}})
    write({"name": "comm_queries", "ranks": ranks,
           "description": "rank, size, LSA size, GIN types and async error of a fresh communicator",
           "steps": steps})
    write({"name": "comm_queries_host", "ranks": 2, "backends": ["host"],
           "description": "the host backend reports device -1, backend HOST, lsa_rank == rank "
                          "(host only: these are the host backend's own values; NCCL reports "
                          "the GPU, NCCL and the rank's place in its LSA team)",
           "steps": [{"op": "comm_query", "what": "device", "expect": {"value": -1}},
                     {"op": "comm_query", "what": "backend", "expect": {"value": 1}},
                     {"op": "comm_query", "what": "lsa_rank", "expect": {"value_per_rank": [0, 1]}}]})
    closed = {"status": "NCORE_ERR_CLOSED", "message_contains": "comm"}
    write({"name": "comm_destroy_then_use", "ranks": 2,
           "description": "a destroyed communicator answers NCORE_ERR_CLOSED; destroy is idempotent",
           "steps": [{"op": "split", "color": 0, "key": 0, "as": "c"},
                     {"op": "destroy", "comm": "c"},
                     {"op": "comm_query", "comm": "c", "what": "rank", "expect": closed},
                     {"op": "is_valid", "handle": "c", "expect": {"value": 0}},
                     {"op": "destroy", "comm": "c"}]})
    write({"name": "comm_abort_then_use", "ranks": 2,
           "description": "an aborted communicator answers NCORE_ERR_CLOSED; abort is idempotent",
           "steps": [{"op": "split", "color": 0, "key": 0, "as": "c"},
                     {"op": "abort", "comm": "c"},
                     {"op": "comm_query", "comm": "c", "what": "size", "expect": closed},
                     {"op": "abort", "comm": "c"},
                     {"op": "destroy", "comm": "c"}]})
    write({"name": "comm_finalize_then_destroy", "ranks": 3,
           "description": "finalize, then queries work, a second finalize is INVALID_USAGE, destroy works",
           "steps": [{"op": "split", "color": 0, "key": 0, "as": "c"},
                     {"op": "finalize", "comm": "c"},
                     {"op": "comm_query", "comm": "c", "what": "size", "expect": {"value": 3}},
                     {"op": "finalize", "comm": "c", "expect": {"status": "NCORE_ERR_INVALID_USAGE"}},
                     {"op": "destroy", "comm": "c"}]})
    write({"name": "comm_null_and_wrong_handles", "ranks": 2,
           "description": "a NULL or wrong-type handle is NCORE_ERR_INVALID_ARGUMENT naming the argument",
           "steps": [{"op": "comm_query", "comm": "null", "what": "rank",
                      "expect": {"status": "NCORE_ERR_INVALID_ARGUMENT", "message_contains": "comm"}},
                     buffer("m", "uint8", 4096),
                     {"op": "register_window", "buffer": "m", "as": "w"},
                     {"op": "comm_query", "comm": "w", "what": "rank",
                      "expect": {"status": "NCORE_ERR_INVALID_ARGUMENT", "message_contains": "comm"}},
                     {"op": "destroy", "comm": "null",
                      "expect": {"status": "NCORE_ERR_INVALID_ARGUMENT"}}]})
    write({"name": "comm_split_even_odd", "ranks": 4,
           "description": "split by parity: two communicators of two ranks; allreduce inside each",
           "steps": [{"op": "split", "color": {"per_rank": [0, 1, 0, 1]}, "key": 0, "as": "c"},
                     {"op": "comm_query", "comm": "c", "what": "size", "expect": {"value": 2}},
                     {"op": "comm_query", "comm": "c", "what": "rank",
                      "expect": {"value_per_rank": [0, 0, 1, 1]}},
                     buffer("a", "int32", 1, "iota:1:0:1"), buffer("b", "int32", 1),
                     {"op": "allreduce", "comm": "c", "send": "a", "recv": "b", "count": 1,
                      "dtype": "int32", "redop": "sum"},
                     check("b", "int32", [[4], [6], [4], [6]]),
                     {"op": "destroy", "comm": "c"}]})
    write({"name": "comm_split_key_order", "ranks": 3,
           "description": "keys order the new ranks: descending keys reverse them",
           "steps": [{"op": "split", "color": 7, "key": {"per_rank": [30, 20, 10]}, "as": "c"},
                     {"op": "comm_query", "comm": "c", "what": "rank",
                      "expect": {"value_per_rank": [2, 1, 0]}}]})
    write({"name": "comm_split_nocolor", "ranks": 3,
           "description": "NOCOLOR gives the null handle; the others form a communicator",
           "steps": [{"op": "split", "color": {"per_rank": [-1, 0, 0]}, "key": 0, "as": "c"},
                     {"op": "is_valid", "handle": "c", "expect": {"value_per_rank": [0, 1, 1]}},
                     {"op": "comm_query", "comm": "c", "what": "size", "ranks": [1, 2],
                      "expect": {"value": 2}}]})
    write({"name": "comm_split_bad_color", "ranks": 2,
           "description": "a color below -1 is rejected",
           "steps": [{"op": "split", "color": -5, "key": 0, "as": "c",
                      "expect": {"status": "NCORE_ERR_INVALID_ARGUMENT", "message_contains": "color"}}]})
    write({"name": "comm_shrink_exclude_one", "ranks": 3,
           "description": "shrink without rank 1: the others renumber in order",
           "steps": [{"op": "shrink", "exclude": [1], "as": "c", "ranks": [0, 2]},
                     {"op": "comm_query", "comm": "c", "what": "rank", "ranks": [0, 2],
                      "expect": {"value_per_rank": [0, None, 1]}},
                     {"op": "comm_query", "comm": "c", "what": "size", "ranks": [0, 2],
                      "expect": {"value": 2}}]})
    for name, exclude, argument in [("comm_shrink_exclude_self", [0], "exclude"),
                                    ("comm_shrink_out_of_range", [5], "exclude"),
                                    ("comm_shrink_repeated", [1, 1], "exclude")]:
        write({"name": name, "ranks": 2, "description": f"shrink rejects exclude={exclude} on rank 0",
               "steps": [{"op": "shrink", "exclude": exclude, "as": "c", "ranks": [0],
                          "expect": {"status": "NCORE_ERR_INVALID_ARGUMENT",
                                     "message_contains": argument}}]})


# ------------------------------------------------------------ resources

def comm_control_cases():
    """Communicator control (ncore/comm_control.h). Revoke exists on every
    NCCL ncore runs on (2.28.7+); suspend, resume and memory statistics need
    NCCL 2.29.7, so on NCCL they either work or answer NOT_SUPPORTED naming
    the version, and the host backend asserts them fully."""
    revoked = {"status": "NCORE_ERR_INVALID_USAGE", "message_contains": "revoked"}
    write({"name": "revoke_refuses_communicating_calls", "ranks": 2,
           "description": "after revoke a communicating call, a second revoke and finalize are "
                          "INVALID_USAGE naming the revoke; queries work; a shrink of nobody "
                          "copies the communicator, and destroy works",
           "steps": [buffer("a", "int32", 1),
                     {"op": "split", "color": 0, "key": 0, "as": "c"},
                     {"op": "revoke", "comm": "c"},
                     {"op": "allreduce", "comm": "c", "send": "a", "recv": "a", "count": 1,
                      "dtype": "int32", "redop": "sum", "expect": revoked},
                     {"op": "revoke", "comm": "c", "expect": revoked},
                     {"op": "finalize", "comm": "c", "expect": revoked},
                     {"op": "comm_query", "comm": "c", "what": "size", "expect": {"value": 2}},
                     {"op": "shrink", "comm": "c", "exclude": [], "as": "d"},
                     {"op": "comm_query", "comm": "d", "what": "size", "expect": {"value": 2}},
                     {"op": "destroy", "comm": "d"},
                     {"op": "destroy", "comm": "c"}]})
    needs_2_29_7 = {"status": ["NCORE_OK", "NCORE_ERR_NOT_SUPPORTED"]}
    write({"name": "suspend_and_resume_rules", "ranks": 2,
           "description": "unknown suspend flags are INVALID_ARGUMENT and a resume without a "
                          "suspend INVALID_USAGE on every backend; a suspend works (host, NCCL "
                          "2.29.7+) or is NOT_SUPPORTED (older NCCL)",
           "steps": [{"op": "suspend", "flags": 4,
                      "expect": {"status": "NCORE_ERR_INVALID_ARGUMENT",
                                 "message_contains": "flags"}},
                     {"op": "resume", "expect": {"status": "NCORE_ERR_INVALID_USAGE",
                                                 "message_contains": "not suspended"}},
                     {"op": "mem_stat", "stat": 9,
                      "expect": {"status": "NCORE_ERR_INVALID_ARGUMENT",
                                 "message_contains": "stat"}},
                     {"op": "split", "color": 0, "key": 0, "as": "c"},
                     {"op": "suspend", "comm": "c", "flags": 1, "expect": needs_2_29_7},
                     {"op": "destroy", "comm": "c"}]})
    suspended = {"status": "NCORE_ERR_INVALID_USAGE", "message_contains": "suspended"}
    write({"name": "suspend_refuses_calls_until_resume_host", "ranks": 2, "backends": ["host"],
           "description": "host: a suspended communicator refuses communicating calls until "
                          "resume; its segment is all persistent memory",
           "steps": [buffer("a", "int32", 1, "iota:0:0:1"),
                     {"op": "suspend", "flags": 1},
                     {"op": "allreduce", "send": "a", "recv": "a", "count": 1,
                      "dtype": "int32", "redop": "sum", "expect": suspended},
                     {"op": "suspend", "flags": 1, "expect": suspended},
                     {"op": "mem_stat", "stat": 1, "expect": {"value": 0}},
                     {"op": "resume"},
                     {"op": "allreduce", "send": "a", "recv": "a", "count": 1,
                      "dtype": "int32", "redop": "sum"},
                     check("a", "int32", [[1], [1]])]})
    write({"name": "comm_properties_host", "ranks": 2, "backends": ["host"],
           "description": "host: no NVML device, device API yes, no multimem, one LSA team, "
                          "one-sided calls reach every peer; no GIN, no CFT, no NCCL device "
                          "communicator (NCCL answers these per version and GPU)",
           "steps": [{"op": "comm_query", "what": w, "expect": {"value": v}}
                     for w, v in [("nvml_device", -1), ("device_api_support", 1),
                                  ("multimem_support", 0), ("n_lsa_teams", 1),
                                  ("host_rma_support", 1), ("gin_connection_type", 0),
                                  ("gin_min_stride", 0), ("available_gin_types", 0),
                                  ("dev_comm_runtime_version_size", 0), ("cft_support", 0),
                                  ("cft_multicast_support", 0), ("cft_counted_support", 0)]]})


def resource_cases():
    write({"name": "register_buffer_properties", "ranks": 2,
           "description": "a registered buffer reports its size and pointer; close is idempotent",
           "steps": [buffer("m", "uint8", 8192),
                     {"op": "register_buffer", "buffer": "m", "as": "r"},
                     {"op": "registered_buffer_query", "handle": "r", "what": "size", "expect": {"value": 8192}},
                     {"op": "registered_buffer_query", "handle": "r", "what": "pointer_matches",
                      "buffer": "m", "expect": {"value": 1}},
                     {"op": "is_valid", "handle": "r", "expect": {"value": 1}},
                     {"op": "close", "handle": "r"},
                     {"op": "is_valid", "handle": "r", "expect": {"value": 0}},
                     {"op": "close", "handle": "r"},
                     {"op": "registered_buffer_query", "handle": "r", "what": "size",
                      "expect": {"status": "NCORE_ERR_CLOSED"}}]})
    write({"name": "register_buffer_bad_arguments", "ranks": 2,
           "description": "NULL pointer and zero size are rejected",
           "steps": [buffer("m", "uint8", 64),
                     {"op": "register_buffer", "buffer": "null", "size": 64, "as": "r",
                      "expect": {"status": "NCORE_ERR_INVALID_ARGUMENT", "message_contains": "ptr"}},
                     {"op": "register_buffer", "buffer": "m", "size": 0, "as": "r",
                      "expect": {"status": "NCORE_ERR_INVALID_ARGUMENT", "message_contains": "size"}}]})
    for how in ["destroy", "abort"]:
        write({"name": f"resources_after_comm_{how}", "ranks": 2,
               "description": f"every resource of a communicator is closed by {how}",
               "steps": [{"op": "split", "color": 0, "key": 0, "as": "c"},
                         buffer("m", "uint8", 4096),
                         {"op": "register_buffer", "comm": "c", "buffer": "m", "as": "r"},
                         {"op": "register_window", "comm": "c", "buffer": "m", "as": "w"},
                         {"op": "create_pre_mul_sum", "comm": "c", "scalar": 1.0, "dtype": "float32",
                          "residence": "host", "as": "o"},
                         lsa_split({"op": "create_dev_comm", "comm": "c", "requirements": None,
                                    "as": "d"}, NEEDS_GIN),
                         {"op": "symmetric_alloc", "comm": "c", "size": 1024, "as": "s"},
                         {"op": how, "comm": "c"}] +
                        [{"op": "is_valid", "handle": h, "expect": {"value": 0}} for h in "rwods"] +
                        [{"op": "window_query", "window": "w", "what": "size",
                          "expect": {"status": "NCORE_ERR_CLOSED"}},
                         {"op": "close", "handle": "w"},
                         {"op": "symmetric_query", "sym": "s", "what": "size",
                          "expect": {"status": "NCORE_ERR_CLOSED"}}]})


def window_cases():
    write({"name": "window_properties", "ranks": 3,
           "description": "size, peer size, flags, user pointer and multimem of a window",
           "steps": [buffer("m", "uint8", 8192),
                     {"op": "register_window", "buffer": "m", "flags": 1, "as": "w"},
                     {"op": "window_query", "window": "w", "what": "size", "expect": {"value": 8192}},
                     {"op": "window_query", "window": "w", "what": "peer_size", "peer": 2,
                      "expect": {"value": 8192}},
                     {"op": "window_query", "window": "w", "what": "flags", "expect": {"value": 1}},
                     {"op": "window_query", "window": "w", "what": "user_pointer_matches",
                      "expect": {"value": 1}},
                     {"op": "window_query", "window": "w", "what": "multimem_pointer_null",
                      "expect": {"value": 1}},
                     unreachable({"op": "window_query", "window": "w", "what": "peer_pointer_null",
                                  "peer": 1, "expect": {"value": 0}}, {"value": 1}),
                     {"op": "window_query", "window": "w", "what": "lsa_pointer_null", "peer": 0,
                      "offset": 8192, "expect": {"value": 0}}]})
    write({"name": "window_plain_memory_has_no_peer_pointer", "ranks": 2, "backends": ["host"],
           "description": "a window over ordinary memory has no peer pointer, but its own part "
                          "does (host only: NCCL registers windows over device memory only)",
           "steps": [buffer("m", "uint8", 4096, memory="plain"),
                     {"op": "register_window", "buffer": "m", "as": "w"},
                     {"op": "window_query", "window": "w", "what": "peer_pointer_null",
                      "peer": {"per_rank": [1, 0]}, "expect": {"value": 1}},
                     {"op": "window_query", "window": "w", "what": "peer_pointer_null",
                      "peer": {"per_rank": [0, 1]}, "expect": {"value": 0}}]})
    write({"name": "window_flags_of_nccl_2_32_host", "ranks": 2, "backends": ["host"],
           "description": "host: GIN_ONLY (4) registers, its one-sided calls being its GIN; "
                          "CFT_COUNTED (8) is refused, no Compute Fabric Transport on one host "
                          "(host only: NCCL takes both from 2.32.0, and CFT_COUNTED only where "
                          "the GPUs have CFT logical endpoints)",
           "steps": [buffer("m", "uint8", 4096),
                     {"op": "register_window", "buffer": "m", "flags": 4, "as": "w"},
                     {"op": "window_query", "window": "w", "what": "flags", "expect": {"value": 4}},
                     {"op": "close", "handle": "w"},
                     {"op": "register_window", "buffer": "m", "flags": 8, "as": "c",
                      "expect": {"status": "NCORE_ERR_NOT_SUPPORTED",
                                 "message_contains": "NCORE_WINDOW_CFT_COUNTED"}}]})
    # CFT (ncore/cft.h): the arguments are checked before any backend sees
    # them; the host has no compute fabric.
    cft_steps = [
        {"op": "team", "team": "cft", "mode": 0, "what": "n_ranks"},
        {"op": "team", "team": "cft", "mode": 2, "what": "rank"},
        {"op": "team", "team": "cft_multimem", "what": "stride"},
        {"op": "window_query", "window": "w", "what": "multimem_le_offset", "offset": 64},
        {"op": "window_query", "window": "w", "what": "peer_le_offset", "peer": 1, "offset": 8},
        {"op": "window_query", "window": "w", "what": "cft_le_offset", "peer": 0, "n_ranks": 1,
         "rank": 0, "stride": 1, "offset": 4096}]
    write({"name": "cft_arguments_are_checked", "ranks": 2,
           "description": "CFT teams and logical endpoint addresses refuse a bad mode, an offset "
                          "beyond the part, a peer or a member out of range and a malformed team "
                          "(INVALID_ARGUMENT naming it) on every backend and NCCL",
           "steps": [buffer("m", "uint8", 4096),
                     {"op": "register_window", "buffer": "m", "as": "w"}] +
                    [dict(step, expect={"status": "NCORE_ERR_INVALID_ARGUMENT",
                                        "message_contains": text})
                     for step, text in [
                         ({"op": "team", "team": "cft", "mode": 9, "what": "n_ranks"}, "mode: 9"),
                         ({"op": "window_query", "window": "w", "what": "multimem_le_offset",
                           "offset": 4097}, "offset"),
                         ({"op": "window_query", "window": "w", "what": "peer_le_offset",
                           "peer": 2}, "peer"),
                         ({"op": "window_query", "window": "w", "what": "cft_le_offset", "peer": 1,
                           "n_ranks": 1, "rank": 0, "stride": 1}, "peer_cft"),
                         ({"op": "window_query", "window": "w", "what": "cft_le_offset", "peer": 0,
                           "n_ranks": 2, "rank": 2, "stride": 1}, "team.rank")]]})
    write({"name": "cft_refused_on_the_host", "ranks": 2, "backends": ["host"],
           "description": "every CFT team and logical endpoint query is NOT_SUPPORTED naming "
                          "NCCL 2.31 (host only: NCCL answers from 2.31 where the GPUs and the "
                          "driver have CFT logical endpoints, and refuses naming 2.31 before)",
           "steps": [buffer("m", "uint8", 4096),
                     {"op": "register_window", "buffer": "m", "as": "w"}] +
                    [dict(step, expect={"status": "NCORE_ERR_NOT_SUPPORTED",
                                        "message_contains": "NCCL 2.31"})
                     for step in cft_steps]})
    write({"name": "window_unequal_sizes", "ranks": 2,
           "description": "windows may differ in size by default; peer_size tells",
           "steps": [buffer("m", "uint8", 8192),
                     {"op": "register_window", "buffer": "m", "size": {"per_rank": [4096, 8192]}, "as": "w"},
                     {"op": "window_query", "window": "w", "what": "peer_size", "peer": 1,
                      "expect": {"value": 8192}},
                     {"op": "window_query", "window": "w", "what": "peer_size", "peer": 0,
                      "expect": {"value": 4096}}]})
    write({"name": "window_symmetric_flag_unequal_sizes", "ranks": 2,
           "description": "COLL_SYMMETRIC with unequal sizes is rejected",
           "steps": [buffer("m", "uint8", 8192),
                     {"op": "register_window", "buffer": "m", "size": {"per_rank": [4096, 8192]},
                      "flags": 1, "as": "w",
                      "expect": {"status": "NCORE_ERR_INVALID_ARGUMENT", "message_contains": "size"}}]})
    for name, step, argument in [
        ("window_bad_flags", {"op": "register_window", "buffer": "m", "flags": 16, "as": "w"}, "flags"),
        ("window_null_pointer", {"op": "register_window", "buffer": "null", "size": 4096, "as": "w"}, "ptr"),
        ("window_zero_size", {"op": "register_window", "buffer": "m", "size": 0, "as": "w"}, "size"),
    ]:
        step["expect"] = {"status": "NCORE_ERR_INVALID_ARGUMENT", "message_contains": argument}
        write({"name": name, "ranks": 2, "description": f"register_window rejects a bad {argument}",
               "steps": [buffer("m", "uint8", 4096), step]})
    for name, what, extra, argument in [
        ("window_peer_pointer_out_of_range", "peer_pointer_null", {"peer": 2}, "peer"),
        ("window_lsa_rank_out_of_range", "lsa_pointer_null", {"peer": 3}, "lsa_rank"),
        ("window_offset_beyond_size", "peer_pointer_null", {"peer": 0, "offset": 4097}, "offset"),
    ]:
        write({"name": name, "ranks": 2, "description": f"window pointers reject a bad {argument}",
               "steps": [buffer("m", "uint8", 4096),
                         {"op": "register_window", "buffer": "m", "as": "w"},
                         dict({"op": "window_query", "window": "w", "what": what,
                               "expect": {"status": "NCORE_ERR_INVALID_ARGUMENT",
                                          "message_contains": argument}}, **extra)]})
    write({"name": "window_close_idempotent", "ranks": 2,
           "description": "close twice is fine; a closed window answers CLOSED",
           "steps": [buffer("m", "uint8", 4096),
                     {"op": "register_window", "buffer": "m", "as": "w"},
                     {"op": "close", "handle": "w"}, {"op": "close", "handle": "w"},
                     {"op": "is_valid", "handle": "w", "expect": {"value": 0}},
                     {"op": "window_query", "window": "w", "what": "size",
                      "expect": {"status": "NCORE_ERR_CLOSED", "message_contains": "window"}}]})


def onesided_cases():
    write({"name": "signal_then_wait", "ranks": 2,
           "description": "rank 0 signals rank 1 twice; rank 1 waits for two",
           "steps": [unreachable({"op": "signal", "ranks": [0], "peer": 1}),
                     unreachable({"op": "signal", "ranks": [0], "peer": 1}),
                     unreachable({"op": "wait_signal", "ranks": [1],
                                  "descs": [{"peer": 0, "op_count": 2}]}),
                     {"op": "synchronize", "ranks": [1]}]})
    write({"name": "wait_signal_many_peers", "ranks": 4,
           "description": "rank 0 waits for one signal from each of ranks 1..3 in one call",
           "steps": [unreachable({"op": "signal", "ranks": [1, 2, 3], "peer": 0}),
                     unreachable({"op": "wait_signal", "ranks": [0],
                                  "descs": [{"peer": 1, "op_count": 1}, {"peer": 2, "op_count": 1},
                                            {"peer": 3, "op_count": 1}]}),
                     {"op": "synchronize", "ranks": [0]}]})
    write({"name": "wait_signal_really_waits", "ranks": 2,
           "description": "a wait issued before the signal completes after it (on NCCL the "
                          "wait runs on the stream: synchronize waits for it)",
           "steps": [{"op": "sleep", "ranks": [0], "ms": 200},
                     unreachable({"op": "signal", "ranks": [0], "peer": 1}),
                     unreachable({"op": "wait_signal", "ranks": [1], "descs": [{"peer": 0}]}),
                     {"op": "synchronize", "ranks": [1]}]})
    for name, step, argument in [
        ("signal_peer_out_of_range", {"op": "signal", "peer": 9}, "peer"),
        ("signal_nonzero_index", {"op": "signal", "peer": 0, "signal_index": 1}, "signal_index"),
        ("signal_nonzero_context", {"op": "signal", "peer": 0, "context": 2}, "context"),
        ("signal_nonzero_flags", {"op": "signal", "peer": 0, "flags": 1}, "flags"),
        ("wait_signal_zero_count", {"op": "wait_signal", "descs": [{"peer": 0, "op_count": 0}]}, "op_count"),
        ("wait_signal_bad_peer", {"op": "wait_signal", "descs": [{"peer": 4}]}, "peer"),
        ("wait_signal_nonzero_index", {"op": "wait_signal", "descs": [{"peer": 0, "signal_index": 3}]}, "signal_index"),
        ("wait_signal_bad_struct_size", {"op": "wait_signal", "descs": [{"peer": 0}], "struct_size": 2}, "struct_size"),
        ("wait_signal_no_descs", {"op": "wait_signal", "descs": []}, "descs"),
    ]:
        step["expect"] = {"status": "NCORE_ERR_INVALID_ARGUMENT", "message_contains": argument}
        write({"name": name, "ranks": 2, "description": f"{step['op']} rejects a bad {argument}",
               "steps": [step]})
    ring_values = [[100 * r + i for i in range(8)] for r in range(3)]
    write({"name": "put_signal_ring", "ranks": 3,
           "description": "each rank puts 8 int32 into the next rank's window and signals it",
           "steps": [buffer("src", "int32", 8, "iota:0:1:100"), buffer("win", "int32", 8),
                     {"op": "register_window", "buffer": "win", "as": "w"},
                     unreachable({"op": "put_signal", "buffer": "src", "count": 8, "dtype": "int32",
                                  "peer": {"per_rank": [1, 2, 0]}, "window": "w"}),
                     unreachable({"op": "wait_signal", "descs": [{"peer": {"per_rank": [2, 0, 1]}}]}),
                     lsa_split(check("win", "int32", [ring_values[(r - 1) % 3] for r in range(3)]),
                               check("win", "int32", [[0] * 8] * 3)["expect"])]})
    write({"name": "put_signal_plain_window", "ranks": 2, "backends": ["host"],
           "description": "put_signal into a window over ordinary memory still delivers the data "
                          "(host only: NCCL registers windows over device memory only)",
           "steps": [buffer("src", "float32", 4, "iota:1.5:1:10"),
                     buffer("win", "float32", 4, memory="plain"),
                     {"op": "register_window", "buffer": "win", "as": "w"},
                     {"op": "put_signal", "ranks": [0], "buffer": "src", "count": 4,
                      "dtype": "float32", "peer": 1, "window": "w"},
                     {"op": "wait_signal", "ranks": [1], "descs": [{"peer": 0}]},
                     dict(check("win", "float32", [[], [1.5, 2.5, 3.5, 4.5]]), ranks=[1])]})
    write({"name": "put_signal_at_offset", "ranks": 2,
           "description": "the window offset counts elements",
           "steps": [buffer("src", "int64", 2, "iota:5:1:0"), buffer("win", "int64", 6),
                     {"op": "register_window", "buffer": "win", "as": "w"},
                     unreachable({"op": "put_signal", "ranks": [0], "buffer": "src", "count": 2,
                                  "dtype": "int64", "peer": 1, "window": "w", "window_offset": 3}),
                     unreachable({"op": "wait_signal", "ranks": [1], "descs": [{"peer": 0}]}),
                     lsa_split(dict(check("win", "int64", [[], [0, 0, 0, 5, 6, 0]]), ranks=[1]),
                               check("win", "int64", [[], [0] * 6])["expect"])]})
    write({"name": "put_signal_float16", "ranks": 2,
           "description": "put_signal moves float16 bits unchanged",
           "steps": [buffer("src", "float16", 3, "hex:" + to_hex("float16", [0.5, -2.0, 65504.0])),
                     buffer("win", "float16", 3),
                     {"op": "register_window", "buffer": "win", "as": "w"},
                     unreachable({"op": "put_signal", "ranks": [1], "buffer": "src", "count": 3,
                                  "dtype": "float16", "peer": 0, "window": "w"}),
                     unreachable({"op": "wait_signal", "ranks": [0], "descs": [{"peer": 1}]}),
                     lsa_split(dict(check("win", "float16", [[0.5, -2.0, 65504.0]]), ranks=[0]),
                               check("win", "float16", [[0.0] * 3])["expect"])]})
    write({"name": "put_signal_window_too_small", "ranks": 2,
           "description": "a put that does not fit the peer's window is rejected, naming the sizes",
           "steps": [buffer("src", "int32", 1024), buffer("win", "int32", 256),
                     {"op": "register_window", "buffer": "win", "as": "w"},
                     {"op": "put_signal", "buffer": "src", "count": 1024, "dtype": "int32",
                      "peer": {"per_rank": [1, 0]}, "window": "w",
                      "expect": {"status": "NCORE_ERR_INVALID_ARGUMENT",
                                 "message_contains": "1024 bytes"}}]})
    write({"name": "put_signal_offset_past_end", "ranks": 2,
           "description": "an offset past the end of the peer's window is rejected",
           "steps": [buffer("src", "int32", 1), buffer("win", "int32", 4),
                     {"op": "register_window", "buffer": "win", "as": "w"},
                     {"op": "put_signal", "buffer": "src", "count": 1, "dtype": "int32",
                      "peer": {"per_rank": [1, 0]}, "window": "w", "window_offset": 4,
                      "expect": {"status": "NCORE_ERR_INVALID_ARGUMENT", "message_contains": "peer_window"}}]})
    write({"name": "put_signal_closed_window", "ranks": 2,
           "description": "put_signal through a closed window answers NCORE_ERR_CLOSED",
           "steps": [buffer("src", "int32", 4), buffer("win", "int32", 4),
                     {"op": "register_window", "buffer": "win", "as": "w"},
                     {"op": "close", "handle": "w"},
                     {"op": "put_signal", "buffer": "src", "count": 4, "dtype": "int32",
                      "peer": {"per_rank": [1, 0]}, "window": "w",
                      "expect": {"status": "NCORE_ERR_CLOSED", "message_contains": "peer_window"}}]})
    write({"name": "put_signal_null_window", "ranks": 2,
           "description": "put_signal without a window is rejected",
           "steps": [buffer("src", "int32", 4),
                     {"op": "put_signal", "buffer": "src", "count": 4, "dtype": "int32",
                      "peer": {"per_rank": [1, 0]}, "window": "null",
                      "expect": {"status": "NCORE_ERR_INVALID_ARGUMENT", "message_contains": "peer_window"}}]})
    write({"name": "put_signal_window_of_other_comm", "ranks": 2,
           "description": "a window registered on another communicator is rejected",
           "steps": [{"op": "split", "color": 0, "key": 0, "as": "c"},
                     buffer("src", "int32", 4), buffer("win", "int32", 4),
                     {"op": "register_window", "comm": "c", "buffer": "win", "as": "w"},
                     {"op": "put_signal", "buffer": "src", "count": 4, "dtype": "int32",
                      "peer": {"per_rank": [1, 0]}, "window": "w",
                      "expect": {"status": "NCORE_ERR_INVALID_ARGUMENT", "message_contains": "peer_window"}}]})
    write({"name": "put_signal_nonzero_signal_index", "ranks": 2,
           "description": "put_signal's reserved signal_index must be 0",
           "steps": [buffer("src", "int32", 4), buffer("win", "int32", 4),
                     {"op": "register_window", "buffer": "win", "as": "w"},
                     {"op": "put_signal", "buffer": "src", "count": 4, "dtype": "int32",
                      "peer": {"per_rank": [1, 0]}, "window": "w", "signal_index": 1,
                      "expect": {"status": "NCORE_ERR_INVALID_ARGUMENT", "message_contains": "signal_index"}}]})


def devcomm_cases():
    # Over several LSA teams (without GIN) no device communicator is made:
    # the steps that use it get the null handle's answer.
    never_made = {"status": "NCORE_ERR_INVALID_ARGUMENT", "message_contains": "dev_comm: is NCORE_NULL_HANDLE"}
    write({"name": "dev_comm_default", "ranks": 3,
           "description": "a device communicator with default requirements describes the team",
           "steps": [lsa_split({"op": "create_dev_comm", "requirements": None, "as": "d"}, NEEDS_GIN)] +
                    [lsa_split(step, never_made) for step in [
                        {"op": "dev_comm_info", "handle": "d", "what": "rank", "expect": {"value_per_rank": [0, 1, 2]}},
                        {"op": "dev_comm_info", "handle": "d", "what": "nranks", "expect": {"value": 3}},
                        {"op": "dev_comm_info", "handle": "d", "what": "gin_type", "expect": {"value": 0}},
                        {"op": "dev_comm_info", "handle": "d", "what": "railed_gin_type", "expect": {"value": 0}}]] +
                    [lsa_split({"op": "close", "handle": "d"}, NULL_HANDLE)] * 2 +
                    [{"op": "is_valid", "handle": "d", "expect": {"value": 0}},
                     lsa_split({"op": "dev_comm_info", "handle": "d", "what": "rank",
                                "expect": {"status": "NCORE_ERR_CLOSED"}}, never_made)]})
    write({"name": "dev_comm_lsa_team", "ranks": 2,
           "description": "a device communicator's LSA team is its communicator's",
           # An LSA barrier only: NCCL 2.30 counts barrier_count (the hybrid
           # LSA + rail-GIN barrier) as a GIN resource and refuses it without
           # gin_connection_type, where 2.28 made it in one node.
           "steps": [lsa_split({"op": "create_dev_comm", "requirements": {"lsa_barrier_count": 1},
                                "as": "d"}, NEEDS_GIN),
                     lsa_split({"op": "dev_comm_info", "handle": "d", "what": "lsa_size",
                                "expect": {"value": {"header": "lsa_size"}}}, never_made),
                     lsa_split({"op": "dev_comm_info", "handle": "d", "what": "lsa_rank",
                                "expect": {"value": {"header": "lsa_rank"}}}, never_made)]})
    write({"name": "dev_comm_bad_struct_size", "ranks": 2,
           "description": "requirements with a bad struct_size are rejected",
           "steps": [{"op": "create_dev_comm", "requirements": {"struct_size": 3}, "as": "d",
                      "expect": {"status": "NCORE_ERR_INVALID_ARGUMENT", "message_contains": "struct_size"}}]})
    write({"name": "dev_comm_bad_connection_type", "ranks": 2,
           "description": "an unknown GIN connection type is rejected",
           "steps": [{"op": "create_dev_comm", "requirements": {"gin_connection_type": 9}, "as": "d",
                      "expect": {"status": "NCORE_ERR_INVALID_ARGUMENT",
                                 "message_contains": "gin_connection_type"}}]})
    write({"name": "dev_comm_negative_count", "ranks": 2,
           "description": "a negative resource count is rejected",
           "steps": [{"op": "create_dev_comm", "requirements": {"gin_signal_count": -1}, "as": "d",
                      "expect": {"status": "NCORE_ERR_INVALID_ARGUMENT",
                                 "message_contains": "gin_signal_count"}}]})
    write({"name": "dev_comm_full_gin_unavailable", "ranks": 2, "backends": ["host"],
           "description": "requiring full GIN connectivity where there is no GIN is NOT_SUPPORTED "
                          "(host only: whether NCCL has GIN depends on the machine's network; "
                          "the host backend never has it)",
           "steps": [{"op": "create_dev_comm", "requirements": {"gin_connection_type": 1}, "as": "d",
                      "expect": {"status": "NCORE_ERR_NOT_SUPPORTED", "message_contains": "GIN"}}]})


def symmetric_cases():
    write({"name": "symmetric_put_get_ring", "ranks": 3,
           "description": "put to the next PE, get from the previous; peer pointers exist",
           "steps": [{"op": "symmetric_alloc", "size": 64, "as": "s"},
                     {"op": "symmetric_query", "sym": "s", "what": "size", "expect": {"value": 64}},
                     unreachable({"op": "symmetric_query", "sym": "s", "what": "peer_pointer_null",
                                  "pe": {"per_rank": [1, 2, 0]}, "expect": {"value": 0}}, {"value": 1}),
                     buffer("src", "int32", 4, "iota:1:1:10"), buffer("dst", "int32", 4),
                     buffer("mine", "int32", 4, "iota:7:0:0"),
                     {"op": "symmetric_put", "sym": "s", "buffer": "mine", "bytes": 16,
                      "pe": {"per_rank": [0, 1, 2]},
                      "comment": "this rank's part starts known (it stays so where no put comes)"},
                     {"op": "allreduce", "send": "src", "recv": "dst", "count": 1, "dtype": "int32",
                      "comment": "a barrier, so that no rank puts before its peer's part is set"},
                     unreachable({"op": "symmetric_put", "sym": "s", "buffer": "src", "bytes": 16,
                                  "pe": {"per_rank": [1, 2, 0]}}),
                     {"op": "allreduce", "send": "src", "recv": "dst", "count": 1, "dtype": "int32",
                      "comment": "a barrier, so every put has landed"},
                     {"op": "symmetric_get", "sym": "s", "buffer": "dst", "bytes": 16,
                      "pe": {"per_rank": [0, 1, 2]}},
                     lsa_split(check("dst", "int32", [[1 + 10 * ((r - 1) % 3) + i for i in range(4)]
                                                      for r in range(3)]),
                               check("dst", "int32", [[7] * 4] * 3)["expect"])]})
    for name, step, status, argument in [
        ("symmetric_put_out_of_bounds", {"op": "symmetric_put", "sym": "s", "buffer": "src",
                                         "bytes": 16, "sym_offset": 56, "pe": 0},
         "NCORE_ERR_INVALID_ARGUMENT", "bytes"),
        ("symmetric_get_pe_out_of_range", {"op": "symmetric_get", "sym": "s", "buffer": "src",
                                           "bytes": 4, "pe": 2},
         "NCORE_ERR_INVALID_ARGUMENT", "pe"),
        ("symmetric_put_null_source", {"op": "symmetric_put", "sym": "s", "buffer": "null",
                                       "bytes": 4, "pe": 0},
         "NCORE_ERR_INVALID_ARGUMENT", "src"),
    ]:
        step["expect"] = {"status": status, "message_contains": argument}
        write({"name": name, "ranks": 2, "description": f"{step['op']} rejects a bad {argument}",
               "steps": [{"op": "symmetric_alloc", "size": 64, "as": "s"},
                         buffer("src", "int32", 4), step]})
    write({"name": "symmetric_alloc_zero", "ranks": 2,
           "description": "a zero-size symmetric allocation is rejected",
           "steps": [{"op": "symmetric_alloc", "size": 0, "as": "s",
                      "expect": {"status": "NCORE_ERR_INVALID_ARGUMENT", "message_contains": "size"}}]})
    write({"name": "symmetric_free_idempotent", "ranks": 2,
           "description": "free twice is fine; a freed allocation answers CLOSED",
           "steps": [{"op": "symmetric_alloc", "size": 64, "as": "s"},
                     {"op": "close", "handle": "s"}, {"op": "close", "handle": "s"},
                     {"op": "is_valid", "handle": "s", "expect": {"value": 0}},
                     {"op": "symmetric_query", "sym": "s", "what": "size",
                      "expect": {"status": "NCORE_ERR_CLOSED"}}]})


def memory_cases():
    write({"name": "mem_alloc_free", "ranks": 2,
           "description": "memory from ncore_mem_alloc frees once; a second free is rejected",
           "steps": [{"op": "mem_alloc", "size": 4096, "as": "p"},
                     {"op": "mem_free", "ptr": "p"},
                     {"op": "mem_free", "ptr": "p",
                      "expect": {"status": "NCORE_ERR_INVALID_ARGUMENT", "message_contains": "ptr"}},
                     {"op": "mem_alloc", "size": 0, "as": "q",
                      "expect": {"status": "NCORE_ERR_INVALID_ARGUMENT", "message_contains": "size"}}]})
    sizes = [1, 1, 4, 4, 8, 8, 2, 4, 8, 2, 1, 1]
    write({"name": "dtype_sizes", "ranks": 2,
           "description": "the size of every data type, and an unknown one rejected",
           "steps": [{"op": "dtype_size", "dtype": d, "expect": {"value": s}}
                     for d, s in zip(ALL_DTYPES, sizes)] +
                    [{"op": "dtype_size", "dtype": "raw:12",
                      "expect": {"status": "NCORE_ERR_INVALID_ARGUMENT", "message_contains": "dtype"}}]})


def info_cases():
    # run.py runs every case under NCORE_BACKEND=<the backend it reports>,
    # so what AUTO resolves to, and why, is known here.
    every_feature = 0x3F  # ONE_SIDED|REVOKE|GROW|SUSPEND|MEM_STAT|SCALABLE_INIT
    write({"name": "library_info_version", "ranks": 1,
           "description": "ncore_library_info's version is ncore_version_string()",
           "steps": [{"op": "library_info", "what": "version_matches", "expect": {"value": 1}}]})
    write({"name": "library_info_host", "ranks": 2, "backends": ["host"],
           "description": "under NCORE_BACKEND=host, ncore_library_info names the host backend, "
                          "says why, and lists every feature (the host backend serves them all)",
           "steps": [{"op": "library_info", "what": "backend", "expect": {"value": 1}},
                     {"op": "library_info", "what": "backend_reason",
                      "expect": {"value": {"text": "NCORE_BACKEND=host"}}},
                     {"op": "library_info", "what": "features", "mask": every_feature,
                      "expect": {"value": every_feature}}]})


def failure_cases():
    # Every rank takes part in a barrier first, so the peers are connected
    # when one dies. On NCCL the operation that needs the dead peer is only
    # enqueued (its call may answer NCORE_OK): the failure shows while
    # waiting for it, in synchronize; on the host backend the call fails and
    # synchronize reports the error the communicator kept.
    may_fail = {"status": ["NCORE_OK"] + REMOTE["status"]}
    # The last wait before a peer leaves may see it leave: on NCCL 2.30.7, 2
    # GPUs, rank 1 of aborted_peer_recv aborted while rank 0 still waited for
    # the exchange both had completed, and rank 0 answered REMOTE.
    # The timeout bounds the world's init too: NCCL 2.30.7 over sockets,
    # with the whole matrix running on one GPU, once took over 5 s to make it.
    # A death shows sooner than this anyway (REMOTE, from the closed sockets).
    timeout = 15000
    write({"name": "dead_peer_recv", "ranks": 2, "timeout_ms": timeout,
           "description": "a rank that dies makes its peer's recv fail, not hang",
           "steps": barrier() + connect_pair(may_fail) + [
               buffer("r", "int32", 4),
               {"op": "die", "ranks": [1]},
               {"op": "recv", "ranks": [0], "buffer": "r", "count": 4, "dtype": "int32",
                "peer": 1, "expect": may_fail},
               {"op": "synchronize", "ranks": [0], "expect": REMOTE}]})
    write({"name": "dead_peer_wait_signal", "ranks": 2, "timeout_ms": timeout,
           "description": "a rank that dies makes its peer's wait_signal fail, not hang (outside "
                          "the LSA team no wait is made at all)",
           "steps": barrier(may_fail) + [
               {"op": "die", "ranks": [0]},
               unreachable({"op": "wait_signal", "ranks": [1], "descs": [{"peer": 0}],
                            "expect": may_fail}),
               # Split: no wait was made, so the communicator has nothing
               # to fail; NCCL's proxy may still see the dead rank's socket
               # close and keep that (2.30.7 did, in one run of four).
               lsa_split({"op": "synchronize", "ranks": [1], "expect": REMOTE},
                         may_fail)]})
    write({"name": "dead_peer_allreduce", "ranks": 3, "timeout_ms": timeout,
           "description": "a rank that dies makes the others' allreduce fail, not hang",
           "steps": barrier(may_fail) + [
               buffer("a", "int32", 4), buffer("b", "int32", 4),
               {"op": "die", "ranks": [2]},
               {"op": "allreduce", "ranks": [0, 1], "send": "a", "recv": "b", "count": 4,
                "dtype": "int32", "redop": "sum", "expect": may_fail},
               {"op": "synchronize", "ranks": [0, 1], "expect": REMOTE}]})
    write({"name": "aborted_peer_recv", "ranks": 2, "timeout_ms": timeout,
           "description": "a rank that aborts makes its peer's recv fail with NCORE_ERR_REMOTE",
           "steps": barrier() + connect_pair(may_fail) + [
               buffer("r", "int32", 4),
               {"op": "abort", "ranks": [1]},
               {"op": "recv", "ranks": [0], "buffer": "r", "count": 4, "dtype": "int32",
                "peer": 1, "expect": {"status": ["NCORE_OK", "NCORE_ERR_REMOTE"]}},
               {"op": "synchronize", "ranks": [0], "expect": {"status": "NCORE_ERR_REMOTE"}}]})
    write({"name": "shrink_after_death", "ranks": 3, "timeout_ms": timeout, "backends": ["host"],
           "description": "after a rank dies, the survivors see it fail, shrink it away (aborting "
                          "what is still queued) and carry on (host only: NCCL refuses to shrink "
                          "a parent whose own asynchronous error it set, as a closed connection "
                          "to the dead rank does; ncore/comm.h says so)",
           "steps": barrier(may_fail) + [
               {"op": "die", "ranks": [1]},
               buffer("a", "int32", 1, "iota:1:0:1"), buffer("b", "int32", 1),
               {"op": "allreduce", "ranks": [0, 2], "send": "a", "recv": "b", "count": 1,
                "dtype": "int32", "redop": "sum", "expect": may_fail},
               {"op": "synchronize", "ranks": [0, 2], "expect": REMOTE},
               {"op": "shrink", "ranks": [0, 2], "exclude": [1], "flags": 1, "as": "c",
                "comment": "flags 1: NCORE_SHRINK_ABORT"},
               {"op": "allreduce", "ranks": [0, 2], "comm": "c", "send": "a", "recv": "b",
                "count": 1, "dtype": "int32", "redop": "sum"},
               {"op": "synchronize", "ranks": [0, 2], "comm": "c"},
               dict(check("b", "int32", [[4], [], [4]]), ranks=[0, 2])]})


def generated_files():
    """The case files this script wrote (hand-written ones have no marker)."""
    out = []
    for name in sorted(os.listdir(CASES)):
        if name.endswith(".json"):
            with open(os.path.join(CASES, name)) as f:
                if json.load(f).get("generator") == GENERATOR:
                    out.append(os.path.join(CASES, name))
    return out


def main():
    os.makedirs(CASES, exist_ok=True)
    for path in generated_files():
        os.remove(path)
    for family in [collective_cases, in_place_cases, custom_op_cases, collective_error_cases,
                   p2p_cases, comm_cases, comm_control_cases, resource_cases, window_cases, onesided_cases,
                   devcomm_cases, symmetric_cases, memory_cases, info_cases, failure_cases]:
        family()
    total = len([n for n in os.listdir(CASES) if n.endswith(".json")])
    written = len(generated_files())
    print(written, "cases written,", total - written, "hand-written ones kept")


if __name__ == "__main__":
    main()
