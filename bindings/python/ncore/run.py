"""Launcher: ``python -m ncore.run -n N [options] (script.py | -m module) [args]``.

This is ncore-run itself (core/launcher, the C program ``make install``
and the wheel install as ``ncore-run``), run with this interpreter for the
script or module: one launcher, so the options, the ranks' environment
(ncore's NCORE_RANK, NCORE_NRANKS, NCORE_LOCAL_RANK, NCORE_UNIQUE_ID and
torchrun's RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR,
MASTER_PORT), the unbuffered output forwarded line by line, the failure
reports and the exit status are the same. ``python -m ncore.run --help``
lists them. In the ranks, ``Communicator.from_env()`` joins."""

from __future__ import annotations

import os
import shutil
import sys
from typing import Optional, Sequence

__all__ = ["main", "launcher_path"]


def _loaded_libncore() -> Optional[str]:
    """The libncore file this process loaded (through the extension)."""
    from . import _lib  # noqa: F401  (loads libncore)

    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.split()[-1]
            if os.path.basename(path).startswith("libncore.so"):
                return path
    return None


def launcher_path() -> str:
    """The ncore-run program that belongs to the loaded libncore: the
    wheel's (ncore/bin) when the wheel's library was loaded, else the one
    beside the library (PREFIX/bin of make install, build/bin of make lib),
    then the wheel's, then the first on PATH. Raises FileNotFoundError
    naming what was tried."""
    here = os.path.dirname(os.path.abspath(__file__))
    wheel = os.path.join(here, "bin", "ncore-run")
    candidates = [wheel]
    library = _loaded_libncore()
    if library:
        # The launcher that came with the library this process loaded: the
        # wheel's own when it loaded the wheel's copy, else the one of its
        # prefix or build (a checkout may hold a stale wheel copy).
        folder = os.path.dirname(os.path.realpath(library))
        if folder != os.path.realpath(here):
            candidates.insert(0, os.path.join(folder, "..", "bin", "ncore-run"))
    on_path = shutil.which("ncore-run")
    if on_path:
        candidates.append(on_path)
    for candidate in candidates:
        if os.access(candidate, os.X_OK):
            return os.path.realpath(candidate)
    raise FileNotFoundError("ncore-run not found (tried " + ", ".join(candidates) + ")")


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Runs ncore-run with this interpreter for the script or module."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        path = launcher_path()
    except FileNotFoundError as error:
        print(f"python -m ncore.run: {error}", file=sys.stderr)
        return 2
    os.execv(path, [path, "--python", sys.executable, *args])
    return 2  # not reached


if __name__ == "__main__":
    sys.exit(main())
