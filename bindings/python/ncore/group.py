"""Group calls (ncclGroupStart / ncclGroupEnd): between them, p2p and
collective calls of this thread are queued and run together at the end, so a
rank can send and receive without deadlock and one thread can drive several
communicators. Groups nest."""

from __future__ import annotations

from typing import Optional

from ._lib import raw

__all__ = ["group_start", "group_end", "group"]


def group_start() -> None:
    """Starts a group (ncore_group_start)."""
    raw.ncore_group_start()


def group_end() -> None:
    """Ends a group; at the outermost end, runs the queued calls.

    Raises:
        NcclInvalidUsage: no group was started.
        NcclError: the first failure of a queued call.
    """
    raw.ncore_group_end()


class group:
    """``with ncore.group(): ...`` -- group_start on entry, group_end on exit
    (also when the body raises, so the group does not stay open). A class
    rather than a generator-based context manager: it costs a fifth as much
    per use, which matters for small grouped calls."""

    __slots__ = ()

    def __enter__(self) -> None:
        raw.ncore_group_start()

    def __exit__(self, exc_type: Optional[type], exc: Optional[BaseException],
                 traceback: object) -> None:
        raw.ncore_group_end()
