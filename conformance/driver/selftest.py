"""The driver's self-test: the logic that needs no runner, checked on
synthetic records, so that it is tested on the host backend too (whose LSA
team is always the whole world). `run.py --self-test` runs it alone; every
run.py runs it first.

- which expectation a rank gets for a topology its header reports (LSA
  teams of 1 rank, as with oversubscribed NCCL ranks; teams of 2 of 4; the
  host's single team);
- the header checks, the end-record check and values read from headers;
- batching (rank counts, sizes, cases where a rank dies run alone);
- the cases themselves: every call to a peer that the host expects to
  succeed says what it gives when that peer is outside the caller's LSA team.
"""

from __future__ import annotations

import glob
import json
import os

from . import expect, launch, op_table, schedule
from .plans import runs_step

CASES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "cases")
UNREACHABLE = {"status": "NCORE_ERR_NOT_SUPPORTED", "message_contains": "LSA team"}


def header(rank, nranks, lsa_size, status="NCORE_OK"):
    """A header record of a topology whose LSA teams are blocks of lsa_size."""
    return {"case": "t", "rank": rank, "begin": True, "status": status, "message": "",
            "nranks": nranks, "lsa_rank": rank % lsa_size, "lsa_size": lsa_size}


def record(rank, step, status="NCORE_OK", message="", value=None):
    out = {"case": "t", "rank": rank, "step": step, "op": "x", "status": status,
           "message": message}
    if value is not None:
        out["value"] = value
    return out


def run_of(case, lsa_size, records):
    """A CaseRun: every rank started with teams of lsa_size and ended."""
    n = case["ranks"]
    return launch.CaseRun({r: header(r, n, lsa_size) for r in range(n)},
                          {(r["rank"], r["step"]): r for r in records}, set(range(n)))


class Checks:
    def __init__(self):
        self.passed, self.failures = 0, []

    def eq(self, what, got, want):
        if got == want:
            self.passed += 1
        else:
            self.failures.append(f"{what}: got {got!r}, expected {want!r}")


def test_expectations(t):
    signal = {"op": "signal", "peer": {"per_rank": [1, 0]}, "expect_unreachable": UNREACHABLE}
    t.eq("host team: a peer is reachable", expect.expectation(signal, 0, header(0, 2, 2)), {})
    t.eq("team of 1: the other rank is unreachable",
         expect.expectation(signal, 0, header(0, 2, 1)), UNREACHABLE)
    self_signal = dict(signal, peer=0)
    t.eq("team of 1: itself is reachable", expect.expectation(self_signal, 0, header(0, 2, 1)), {})
    bad = dict(signal, peer=9, expect={"status": "NCORE_ERR_INVALID_ARGUMENT"})
    t.eq("a peer out of range is an argument error, not a topology",
         expect.expectation(bad, 0, header(0, 2, 1)), bad["expect"])
    wait = {"op": "wait_signal", "descs": [{"peer": 0}, {"peer": {"per_rank": [1, 2, 3, 0]}}],
            "expect_unreachable": UNREACHABLE}
    t.eq("teams of 2 of 4: rank 2 reaches 3", expect.expectation(
        dict(wait, descs=[{"peer": 3}]), 2, header(2, 4, 2)), {})
    t.eq("teams of 2 of 4: any descriptor outside the team decides",
         expect.expectation(wait, 2, header(2, 4, 2)), UNREACHABLE)
    t.eq("teams of 2 of 4: rank 1 does not reach 2",
         expect.expectation(wait, 1, header(1, 4, 2)), UNREACHABLE)
    put = {"op": "symmetric_put", "pe": {"per_rank": [1, 2, 0]}, "expect_unreachable": UNREACHABLE}
    t.eq("pe counts as a peer", expect.expectation(put, 2, header(2, 3, 1)), UNREACHABLE)
    split = {"op": "check", "expect": {"hex": "01"}, "expect_lsa_split": {"hex": "00"}}
    t.eq("split topology, step without peer", expect.expectation(split, 0, header(0, 2, 1)),
         {"hex": "00"})
    t.eq("one team, step without peer", expect.expectation(split, 0, header(0, 2, 2)),
         {"hex": "01"})
    t.eq("one rank is one team", expect.expectation(split, 0, header(0, 1, 1)), {"hex": "01"})
    both = dict(signal, expect_lsa_split={"status": "NCORE_OK"})
    t.eq("unreachable before split", expect.expectation(both, 0, header(0, 2, 1)), UNREACHABLE)
    t.eq("split when the peer is in the team", expect.expectation(
        dict(both, peer=0), 0, header(0, 2, 1)), {"status": "NCORE_OK"})
    t.eq("a value read from the header", expect.resolve({"header": "lsa_size"}, 1,
                                                         header(1, 4, 2)), 2)
    t.eq("a per-rank value", expect.resolve({"per_rank": [5, 6]}, 1, header(1, 2, 2)), 6)
    t.eq("a text value, as hex", expect.resolve({"text": "NCORE_BACKEND=host"}, 0, header(0, 1, 1)),
         "4e434f52455f4241434b454e443d686f7374")


def test_checks(t):
    case = {"name": "t", "ranks": 2, "steps": [
        {"op": "signal", "peer": {"per_rank": [1, 0]}, "expect_unreachable": UNREACHABLE},
        {"op": "comm_query", "what": "lsa_size", "expect": {"value": 2},
         "expect_lsa_split": {"value": {"header": "lsa_size"}}}]}
    split = [record(r, 0, "NCORE_ERR_NOT_SUPPORTED", "ncore_signal: outside its LSA team of 1")
             for r in range(2)] + [record(r, 1, value=1) for r in range(2)]
    t.eq("split records pass on a split topology", expect.check_case(case, run_of(case, 1, split)),
         [])
    host = [record(r, 0) for r in range(2)] + [record(r, 1, value=2) for r in range(2)]
    t.eq("host records pass on one team", expect.check_case(case, run_of(case, 2, host)), [])
    t.eq("host records fail on a split topology", len(expect.check_case(
        case, run_of(case, 1, host))), 4)
    t.eq("split records fail on one team", len(expect.check_case(case, run_of(case, 2, split))), 4)
    wrong = [record(r, 0, "NCORE_ERR_NOT_SUPPORTED", "no GIN") for r in range(2)] + split[2:]
    t.eq("the message is checked in the alternative",
         len(expect.check_case(case, run_of(case, 1, wrong))), 2)
    run = run_of(case, 2, host)
    run.ends.discard(1)
    t.eq("a rank that did not release the case fails it",
         [p.split(":")[0] for p in expect.check_case(case, run)], ["rank 1"])
    run = run_of(case, 2, host)
    run.headers[1] = header(1, 2, 2, status="NCORE_ERR_TIMEOUT")
    t.eq("a rank without a world fails the case",
         [p.split(":")[0] for p in expect.check_case(case, run)], ["rank 1"])
    odd = {0: header(0, 4, 2), 1: header(1, 4, 2), 2: header(2, 4, 1), 3: header(3, 4, 2)}
    t.eq("LSA teams that do not tile the ranks",
         len(expect.team_problems({"ranks": 4}, odd)) > 0, True)
    t.eq("LSA teams that tile the ranks",
         expect.team_problems({"ranks": 4}, {r: header(r, 4, 2) for r in range(4)}), [])
    t.eq("a world of the wrong size",
         len(expect.team_problems({"ranks": 3}, {0: header(0, 2, 2)})), 1)


def test_batching(t):
    def case(name, ranks, die=False):
        return {"name": name, "ranks": ranks, "steps": [{"op": "die", "ranks": [0]}] if die else []}
    cases = [case("a", 2), case("b", 3), case("c", 2), case("d", 2, die=True), case("e", 2)]
    t.eq("by rank count, in order, at most 2; a dying case alone",
         [[c["name"] for c in b] for b in schedule.batches(cases, 2)],
         [["a", "c"], ["e"], ["b"], ["d"]])
    dying = case("d", 2, die=True)
    run = launch.CaseRun({}, {}, {1})
    t.eq("complete without the rank that dies", run.complete(dying), True)
    t.eq("not complete without a survivor", launch.CaseRun().complete(dying), False)
    t.eq("records under the launcher's prefix",
         launch.parse_record('[1] {"case":"x","rank":1,"end":true}'),
         {"case": "x", "rank": 1, "end": True})
    t.eq("other lines are no records", launch.parse_record("[0] hello"), None)


# Calls that address a peer that must be in the caller's LSA team (the
# one-sided rows of core/op_table.h), and what a peer outside it gives.
PEER_OPS = tuple(o.name for o in op_table.ONESIDED if o.lsa)
POINTER_QUERIES = {("window_query", "peer_pointer_null"), ("symmetric_query", "peer_pointer_null")}


def test_cases_say_what_a_split_topology_gives(t):
    """Every step that the host expects to succeed and that reaches a peer
    outside a team of 1 rank has an expectation for it, and so has every
    device communicator made over several ranks."""
    for path in sorted(glob.glob(os.path.join(CASES, "*.json"))):
        with open(path) as f:
            case = json.load(f)
        if "nccl" not in case.get("backends", ["host", "nccl"]):
            continue
        n = case["ranks"]
        for index, step in enumerate(case["steps"]):
            ok = step.get("expect", {}).get("status", "NCORE_OK") == "NCORE_OK"
            op, what = step["op"], step.get("what")
            for rank in range(n):
                if not ok or not runs_step(step, rank):
                    continue
                peers = [p for p in expect.step_peers(step, rank) if 0 <= p < n and p != rank]
                where = f"{case['name']} step {index} ({op}) rank {rank}"
                if peers and (op in PEER_OPS or (op, what) in POINTER_QUERIES):
                    t.eq(f"{where}: expect_unreachable", "expect_unreachable" in step, True)
                if n > 1 and (op == "create_dev_comm" or (op, what) == ("comm_query", "lsa_size")):
                    t.eq(f"{where}: expect_lsa_split", "expect_lsa_split" in step, True)


def main(verbose=False):
    """Runs every check; prints failures (and, verbose, a summary line);
    returns 0 when all passed."""
    t = Checks()
    for test in (test_expectations, test_checks, test_batching,
                 test_cases_say_what_a_split_topology_gives):
        test(t)
    for failure in t.failures:
        print(f"self-test FAIL: {failure}")
    if verbose:
        print(f"{t.passed} passed, {len(t.failures)} failed")
    else:
        print(f"self-test: {t.passed} checks passed, {len(t.failures)} failed")
    return 1 if t.failures else 0
