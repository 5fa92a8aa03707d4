"""The console script ncore-run: runs the launcher the wheel carries
(ncore/bin/ncore-run, the C program `make install` installs as bin/ncore-run),
so `ncore-run -n 4 PROGRAM` means the same wherever ncore came from."""

import os
import sys


def main() -> None:
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "ncore-run")
    if not os.access(path, os.X_OK):
        sys.exit(f"ncore-run: {path} is missing: this ncore was not installed from a wheel "
                 "(use python -m ncore.run, or the ncore-run of make install)")
    os.execv(path, [path, *sys.argv[1:]])
