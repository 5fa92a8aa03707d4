"""A rank's ``print`` line by line, as libncore makes a C rank's printf
(core/stdio_lines.c): Python's ``sys.stdout`` buffers a pipe in blocks of
its own, which libncore's choice for C's stdout does not reach. So once
libncore is loaded, ``sys.stdout`` is made line-buffered exactly when
libncore made C's stdout so: the library's rule (NCORE_LINE_BUFFERED, a
launcher's rank variable, a terminal or not) is written once, in C, and
read back here through glibc's ``__flbf`` (stdio_ext.h), which says
whether a stream is line-buffered. Where that cannot be asked (another C
library), nothing changes: ``python -u`` or PYTHONUNBUFFERED=1 still do."""

from __future__ import annotations

import ctypes
import sys


def _c_stdout_line_buffered() -> bool:
    """Whether C's stdout is line-buffered (False when unknown)."""
    try:
        libc = ctypes.CDLL(None)
        stdout = ctypes.c_void_p.in_dll(libc, "stdout")
        flbf = libc.__flbf
    except (OSError, AttributeError, ValueError):
        return False
    flbf.argtypes = [ctypes.c_void_p]
    flbf.restype = ctypes.c_int
    return flbf(stdout) != 0


def follow_c_stdout() -> None:
    """Line-buffers sys.stdout where libncore line-buffered C's stdout."""
    stream = sys.stdout
    reconfigure = getattr(stream, "reconfigure", None)
    if reconfigure is None or getattr(stream, "line_buffering", True):
        return
    if _c_stdout_line_buffered():
        reconfigure(line_buffering=True)
