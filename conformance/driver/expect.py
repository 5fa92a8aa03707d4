"""Expectations: which one applies to a rank (the topology its header
record reports), and the checks of one language's records against a case
and of the languages against each other (conformance/README.md)."""

from __future__ import annotations

import struct

from .plans import dying_ranks, per_rank, runs_step

DTYPES = {
    "int8": ("b", 1), "uint8": ("B", 1), "int32": ("i", 4), "uint32": ("I", 4),
    "int64": ("q", 8), "uint64": ("Q", 8), "float16": ("e", 2),
    "float32": ("f", 4), "float64": ("d", 8), "bfloat16": (None, 2),
    "float8_e4m3": (None, 1), "float8_e5m2": (None, 1),
}
TEAM_KEYS = ("nranks", "lsa_rank", "lsa_size")


# ---------------------------------------------------------------- topology

def lsa_team(header):
    """The world ranks of this rank's LSA team: NCCL's LSA team is the block
    of lsa_size consecutive ranks starting at rank - lsa_rank."""
    first = header["rank"] - header["lsa_rank"]
    return range(first, first + header["lsa_size"])


def step_peers(step, rank):
    """The world ranks the step addresses on `rank`: `peer`, `pe`, and every
    wait descriptor's peer, resolved for the rank."""
    peers = [per_rank(step.get(key), rank) for key in ("peer", "pe")]
    peers += [per_rank(d, rank).get("peer", 0) for d in step.get("descs", [])
              if step["op"] == "wait_signal"]
    return [p for p in peers if isinstance(p, int)]


def expectation(step, rank, header):
    """The expectation for `rank`'s record of `step`: `expect_unreachable`
    when a peer of the step (in range) is outside the rank's LSA team,
    `expect_lsa_split` when the team is smaller than the world, else
    `expect` (absent: NCORE_OK)."""
    nranks = header["nranks"]
    if "expect_unreachable" in step:
        team = lsa_team(header)
        if any(0 <= p < nranks and p not in team for p in step_peers(step, rank)):
            return step["expect_unreachable"]
    if "expect_lsa_split" in step and header["lsa_size"] < nranks:
        return step["expect_lsa_split"]
    return step.get("expect", {})


def resolve(value, rank, header):
    """An expected value for `rank`: per_rank resolved, {"header": KEY}
    read from the rank's header record (a value that depends on the
    topology, such as lsa_size), and {"text": S} as the hex of S's UTF-8
    bytes (how runners report text, e.g. library_info's backend_reason)."""
    value = per_rank(value, rank)
    if isinstance(value, dict) and set(value) == {"header"}:
        return header[value["header"]]
    if isinstance(value, dict) and set(value) == {"text"}:
        return value["text"].encode().hex()
    return value


def team_problems(case, headers):
    """Problems with the header records themselves: the world's size, and
    LSA teams that do not tile the ranks consistently."""
    problems = []
    for rank, header in sorted(headers.items()):
        if header["status"] != "NCORE_OK":
            continue
        if header["nranks"] != case["ranks"]:
            problems.append(f"rank {rank}: world of {header['nranks']} ranks, expected "
                            f"{case['ranks']}")
            continue
        team = lsa_team(header)
        if not (0 <= header["lsa_rank"] < header["lsa_size"] and team[0] >= 0
                and team[-1] < header["nranks"]):
            problems.append(f"rank {rank}: LSA rank {header['lsa_rank']} of "
                            f"{header['lsa_size']} does not fit the world")
            continue
        for member in team:
            other = headers.get(member)
            if other is not None and other["status"] == "NCORE_OK" and (
                    other["lsa_size"], other["lsa_rank"]) != (header["lsa_size"],
                                                             member - team[0]):
                problems.append(f"ranks {rank} and {member} disagree on their LSA team")
    return problems


# ---------------------------------------------------------------- checking

def expected_bytes(expect, dtype, rank):
    """The bytes a check step must show, from int/float/hex expectations."""
    expect = per_rank(expect, rank)
    if "per_rank" in expect:
        expect = expect["per_rank"][rank]
    if "hex" in expect:
        hex_value = per_rank(expect["hex"], rank)
        return "".join(hex_value) if isinstance(hex_value, list) else hex_value
    fmt, _ = DTYPES[dtype]
    values = per_rank(expect.get("int", expect.get("float")), rank)
    return struct.pack("<" + fmt * len(values), *values).hex()


def as_user_sees(record):
    """NCORE_IN_PROGRESS is a success in every language (a call on a
    non-blocking communicator accepted and still running): C prints it,
    the bindings return normally; both are NCORE_OK here, with no message."""
    if record.get("status") == "NCORE_IN_PROGRESS":
        return dict(record, status="NCORE_OK", message="")
    return record


def check_record(step, index, rank, record, expect, header, dtype):
    """Problems of one step record against its expectation."""
    problems = []
    record = as_user_sees(record)
    want_status = per_rank(expect.get("status", "NCORE_OK"), rank)
    ok = record["status"] in want_status if isinstance(want_status, list) \
        else record["status"] == want_status
    if not ok:
        return [f"rank {rank} step {index} ({step['op']}): status {record['status']} "
                f"({record['message']}), expected {want_status}"]
    substring = per_rank(expect.get("message_contains"), rank)
    if substring and substring not in record["message"]:
        problems.append(f"rank {rank} step {index}: message {record['message']!r} "
                        f"lacks {substring!r}")
    if "value" in expect or "value_per_rank" in expect:
        want = resolve(expect["value_per_rank"][rank], rank, header) \
            if "value_per_rank" in expect else resolve(expect["value"], rank, header)
        if record.get("value") != want:
            problems.append(f"rank {rank} step {index} ({step['op']}): value "
                            f"{record.get('value')}, expected {want}")
    if step["op"] == "check" and any(k in expect for k in ("int", "float", "hex", "per_rank")):
        want = expected_bytes(expect, dtype, rank)
        if record.get("value") != want:
            problems.append(f"rank {rank} step {index}: buffer {step['buffer']} is "
                            f"{record.get('value')}, expected {want}")
    return problems


def check_case(case, run):
    """Checks one language's CaseRun against the case; returns problems."""
    problems = []
    dying = dying_ranks(case)
    started = set()
    for rank in range(case["ranks"]):
        header = run.headers.get(rank)
        if header is None:
            problems.append(f"rank {rank}: the case did not start (no header record)")
        elif header["status"] != "NCORE_OK":
            problems.append(f"rank {rank}: no world communicator: {header['status']} "
                            f"({header['message']})")
        else:
            started.add(rank)
    problems += team_problems(case, {r: run.headers[r] for r in started})
    buffers = {}
    dead = set()  # ranks a "die" step ended: they report nothing after it
    for index, step in enumerate(case["steps"]):
        if step["op"] == "buffer":
            buffers[step["name"]] = step["dtype"]
        for rank in range(case["ranks"]):
            if not runs_step(step, rank) or rank not in started or rank in dead:
                continue
            if step["op"] == "die":
                dead.add(rank)
                continue
            record = run.steps.get((rank, index))
            if record is None:
                problems.append(f"rank {rank} step {index} ({step['op']}): no result")
                dead.add(rank)  # one missing record says it; the rest follow
                continue
            expect = expectation(step, rank, run.headers[rank])
            problems += check_record(step, index, rank, record, expect, run.headers[rank],
                                     buffers.get(step.get("buffer")))
    for rank in sorted(started - dying - run.ends):
        if all((rank, i) in run.steps for i, s in enumerate(case["steps"]) if runs_step(s, rank)):
            problems.append(f"rank {rank}: did not finish the case (no end record after "
                            f"its last step: releasing the case's objects failed)")
    return problems


def comparable(record):
    """What every language must print alike for a record."""
    record = as_user_sees(record)
    if record.get("begin"):
        return (record["status"],) + tuple(record.get(k) for k in TEAM_KEYS)
    return (record["status"], record["message"], record.get("value"))


def racing_steps(case):
    """Indexes of the steps whose outcome a race decides (their expectation
    lists several statuses: which rank notices a dead peer first, say):
    their records are checked against the expectation, but languages need
    not print them alike."""
    racing = set()
    for index, step in enumerate(case["steps"]):
        status = step.get("expect", {}).get("status")
        if isinstance(status, list) and len(status) > 1:
            racing.add(index)
    return racing


def compare_languages(per_language, racing=frozenset()):
    """Problems where languages disagree on a record both printed, apart
    from the steps in `racing` (racing_steps); after the first of those,
    messages are not compared (a later failure's message may quote which
    rank noticed the race's outcome first), statuses and values are."""
    problems = []
    names = [name for name in per_language if per_language[name] is not None]
    first_race = min(racing) if racing else None
    for other in names[1:]:
        first, second = per_language[names[0]], per_language[other]
        pairs = [(f"rank {r} header", first.headers[r], second.headers.get(r))
                 for r in first.headers]
        pairs += [(f"rank {k[0]} step {k[1]}", rec, second.steps.get(k),
                   first_race is not None and k[1] > first_race)
                  for k, rec in first.steps.items() if k[1] not in racing]
        pairs = [p if len(p) == 4 else p + (False,) for p in pairs]
        for where, mine, theirs, after_race in pairs:
            if theirs is None:
                continue
            a, b = comparable(mine), comparable(theirs)
            if after_race and not mine.get("begin"):
                a, b = (a[0], a[2]), (b[0], b[2])  # status and value only
            if a != b:
                problems.append(f"{names[0]} and {other} differ at {where}: {a} vs {b}")
    return problems
