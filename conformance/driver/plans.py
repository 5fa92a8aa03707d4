"""Plans: what a runner reads (conformance/README.md, "What a runner
reads"). A case's steps without expectations, one step per line, so that no
runner needs a JSON parser; and the `batch` file of a launch."""

from __future__ import annotations

import os

# Step keys that are not arguments: run.py reads them, runners never see them.
NOT_ARGUMENTS = ("op", "ranks", "expect", "expect_unreachable", "expect_lsa_split", "comment")


def plan_value(value):
    """Encodes one argument for the plan: no spaces, no JSON needed."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        if any(c in value for c in " \t\n="):
            raise ValueError(f"string argument {value!r} may not hold spaces or '='")
        return value
    if isinstance(value, dict):
        return ",".join(f"{k}:{plan_value(v)}" for k, v in value.items())
    if isinstance(value, list):
        if value and isinstance(value[0], dict):
            return ";".join(plan_value(v) for v in value)
        return ",".join(plan_value(v) for v in value)
    raise ValueError(f"cannot encode {value!r}")


def per_rank(value, rank):
    """Resolves {"per_rank": [...]} to this rank's value, at any depth (a
    wait descriptor's peer, say)."""
    if isinstance(value, dict) and set(value) == {"per_rank"}:
        return per_rank(value["per_rank"][rank], rank)
    if isinstance(value, dict):
        return {k: per_rank(v, rank) for k, v in value.items()}
    if isinstance(value, list):
        return [per_rank(v, rank) for v in value]
    return value


def runs_step(step, rank):
    """Whether `rank` runs the step (every rank unless "ranks" names some)."""
    ranks = step.get("ranks")
    return ranks is None or rank in ranks


def make_plan(case, rank):
    """The plan text one rank runs: header, then one line per step."""
    lines = [f"case {case['name']}", f"ranks {case['ranks']}",
             f"timeout_ms {case.get('timeout_ms', 10000)}"]
    for index, step in enumerate(case["steps"]):
        if not runs_step(step, rank):
            continue
        args = [f"{key}={plan_value(per_rank(value, rank))}"
                for key, value in step.items() if key not in NOT_ARGUMENTS]
        lines.append(" ".join([str(index), step["op"]] + args))
    return "\n".join(lines) + "\n"


def dying_ranks(case):
    """The ranks a `die` step ends (they report nothing after it)."""
    return {rank for step in case["steps"] if step["op"] == "die"
            for rank in range(case["ranks"]) if runs_step(step, rank)}


def write_batch(directory, cases):
    """Writes a launch's plan directory: <case>/plan.<rank> for each case,
    and the `batch` file naming the case directories in order."""
    os.makedirs(directory, exist_ok=True)
    for case in cases:
        case_dir = os.path.join(directory, case["name"])
        os.makedirs(case_dir, exist_ok=True)
        for rank in range(case["ranks"]):
            with open(os.path.join(case_dir, f"plan.{rank}"), "w") as f:
                f.write(make_plan(case, rank))
    with open(os.path.join(directory, "batch"), "w") as f:
        f.write("".join(case["name"] + "\n" for case in cases))
