"""Conformance runner (Python): reads the line-based plan that
conformance/run.py writes (see conformance/README.md), so no JSON parser is
involved, exactly as in the C runner."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional


@dataclass
class Step:
    """One step: its index in the case, its op and its key=value arguments."""

    index: int
    op: str
    args: dict = field(default_factory=dict)

    def arg(self, key: str) -> Optional[str]:
        """The argument's text, or None when the step does not have it."""
        return self.args.get(key)

    def int(self, key: str, default: int = 0) -> int:
        """Integer argument (C's strtoll with base 0: 0x.., 0.., decimal)."""
        text = self.args.get(key)
        return default if text is None else parse_int(text)


@dataclass
class Plan:
    """A rank's plan: the case name, rank count, timeout and steps."""

    case_name: str = ""
    ranks: int = 0
    timeout_ms: int = 10000
    steps: list = field(default_factory=list)


def parse_int(text: str) -> int:
    """strtoll(text, NULL, 0) for the forms plans use; a float text ("1.0")
    gives its integer part, as strtoll stops at the dot."""
    text = text.strip()
    try:
        return int(text, 0)
    except ValueError:
        digits = ""
        for i, c in enumerate(text):
            if c.isdigit() or (i == 0 and c in "+-"):
                digits += c
            else:
                break
        return int(digits) if digits not in ("", "+", "-") else 0


def object_field(text: str, name: str) -> Optional[str]:
    """Value of `name` inside an object text "k:v,k:v", or None."""
    for item in text.split(","):
        key, sep, value = item.partition(":")
        if sep and key == name:
            return value
    return None


def load(path: str) -> Plan:
    """Reads a plan file."""
    plan = Plan()
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("case "):
                plan.case_name = line[5:]
            elif line.startswith("ranks "):
                plan.ranks = int(line[6:])
            elif line.startswith("timeout_ms "):
                plan.timeout_ms = int(line[11:])
            elif line[:1].isdigit():
                tokens = line.split()
                args = {}
                for token in tokens[2:]:
                    key, sep, value = token.partition("=")
                    if not sep:
                        raise SystemExit(f"conformance: malformed plan {path}: {token}")
                    args[key] = value
                plan.steps.append(Step(int(tokens[0]), tokens[1], args))
    return plan
