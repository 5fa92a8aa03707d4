"""``python -m ncore``: what this ncore is and can do, in one line, as
``python -m mpi4py --version`` or ``torch.utils.collect_env`` answer for
theirs: the version and ABI, the backend AUTO picks here and why, the
libnccl loaded (version and file) or why none was, and the CUDA devices.

It is ``ncore-run --info`` (core/launcher/info.c), the launcher that came
with the libncore this interpreter loaded, run with this process's
environment (which importing ncore pointed at the interpreter's
``nvidia.nccl``, if any): one program writes the line, so the two commands
cannot disagree."""

from __future__ import annotations

import os
import sys
from typing import Optional, Sequence

from .run import launcher_path

__all__ = ["main"]

_USAGE = """usage: python -m ncore [--info | --version]
Prints one line, which begins with ncore's version: the version and ABI,
the backend NCORE_BACKEND_AUTO picks here and why, the libnccl loaded
(version, file) or why none was, and the CUDA devices NCCL sees
(ncore-run --info)."""


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Runs ``ncore-run --info``; 2 on a usage error."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args in (["-h"], ["--help"]):
        print(_USAGE)
        return 0
    if args not in ([], ["--info"], ["--version"]):
        print(f"python -m ncore: unknown arguments {' '.join(args)}\n{_USAGE}",
              file=sys.stderr)
        return 2
    try:
        path = launcher_path()
    except FileNotFoundError as error:
        print(f"python -m ncore: {error}", file=sys.stderr)
        return 2
    sys.stdout.flush()
    os.execv(path, [path, "--info"])
    return 2  # not reached


if __name__ == "__main__":
    sys.exit(main())
