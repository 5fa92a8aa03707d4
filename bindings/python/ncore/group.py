"""Group calls (ncclGroupStart / ncclGroupEnd): between them, p2p and
collective calls of this thread are queued and run together at the end, so a
rank can send and receive without deadlock and one thread can drive several
communicators. Groups nest."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ._errors import NcclNotSupported
from ._lib import raw

__all__ = ["GroupSimInfo", "group_start", "group_end", "group"]


@dataclass(frozen=True)
class GroupSimInfo:
    """What group_end(simulate=True) estimates (ncclSimInfo_t)."""

    #: Estimated time of the group's operations, in seconds.
    estimated_time: float


def group_start() -> None:
    """Starts a group (ncore_group_start)."""
    raw.ncore_group_start()


def group_end(*, simulate: bool = False) -> Optional[GroupSimInfo]:
    """Ends a group; at the outermost end, runs the queued calls.

    simulate: nccl.core's ncclGroupSimulateEnd, which estimates the group's
        time instead of running it. ncore has no C call for it: raises
        NcclNotSupported and leaves the group open (end it with group_end()).

    Raises:
        NcclInvalidUsage: no group was started.
        NcclNotSupported: simulate=True.
        NcclError: the first failure of a queued call.
    """
    if simulate:
        raise NcclNotSupported(
            "group_end: simulate: ncore has no call for ncclGroupSimulateEnd; "
            "the group is still open")
    raw.ncore_group_end()
    return None


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
