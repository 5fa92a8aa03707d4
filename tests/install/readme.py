#!/usr/bin/env python3
"""tests/install/readme.py: the README's commands, as the install tests run
them, so that the README cannot drift from what works.

A block the tests run is tagged in README.md by an HTML comment (not shown
when the README is rendered) on the line before its fence:

    <!-- test: python-wheel -->
    ```sh
    pip wheel ...
    ```

    readme.py show NAME [--set VAR=VALUE]... [--replace TEXT=NEW]...
        prints block NAME; --set replaces the line that assigns VAR
        (``VAR=...``, the README's example value) by VAR=VALUE, --replace
        replaces TEXT wherever the block has it (the README's
        /path/to/ncore by the checkout). A name or a VAR line that is not
        there is an error (exit 2): the test then fails, saying what the
        README lost.
    readme.py list
        the tagged blocks' names.
"""

from __future__ import annotations

import argparse
import os
import re
import sys

README = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "README.md")
TAG = re.compile(r"^<!-- test: ([a-z0-9-]+) -->\s*$")


def blocks(text: str) -> dict:
    """name -> the lines of the fenced block after its tag."""
    found: dict = {}
    lines = text.splitlines()
    for i, line in enumerate(lines):
        match = TAG.match(line)
        if not match:
            continue
        name = match.group(1)
        if name in found:
            raise SystemExit(f"readme.py: block {name!r} is tagged twice")
        start = i + 1
        if start >= len(lines) or not lines[start].startswith("```"):
            raise SystemExit(f"readme.py: the tag {name!r} is not followed by a ``` block")
        end = start + 1
        while end < len(lines) and not lines[end].startswith("```"):
            end += 1
        found[name] = lines[start + 1:end]
    return found


def pair(text: str) -> tuple:
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"{text!r} is not NAME=VALUE")
    return tuple(text.split("=", 1))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--readme", default=README)
    sub = parser.add_subparsers(dest="command", required=True)
    show = sub.add_parser("show")
    show.add_argument("name")
    show.add_argument("--set", type=pair, action="append", default=[])
    show.add_argument("--replace", type=pair, action="append", default=[])
    sub.add_parser("list")
    args = parser.parse_args()
    with open(args.readme) as f:
        found = blocks(f.read())
    if args.command == "list":
        print("\n".join(found))
        return 0
    if args.name not in found:
        print(f"readme.py: README.md has no block tagged {args.name!r} "
              f"(tagged: {', '.join(found) or 'none'})", file=sys.stderr)
        return 2
    lines = list(found[args.name])
    for var, value in args.set:
        assign = re.compile(rf"^{re.escape(var)}=\S*")
        hits = [i for i, line in enumerate(lines) if assign.match(line)]
        if not hits:
            print(f"readme.py: block {args.name!r} assigns no {var}=", file=sys.stderr)
            return 2
        for i in hits:
            lines[i] = assign.sub(lambda _: f"{var}={value}", lines[i])
    text = "\n".join(lines) + "\n"
    for old, new in args.replace:
        text = text.replace(old, new)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
