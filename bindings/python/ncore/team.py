"""Teams (ncore/team.h; nccl.core 0.4.1's NCCLTeam and Communicator.team_world,
team_lsa, team_rail, team_rank_to_world, team_rank_to_lsa). A team is a
value, (n_ranks, rank, stride) as the calling rank sees it; the C library
computes the teams and the conversions, on every backend and every NCCL."""

from __future__ import annotations

from dataclasses import astuple, dataclass

from ._errors import NcclInvalid
from ._lib import raw

__all__ = ["NCCLTeam"]


@dataclass(frozen=True)
class NCCLTeam:
    """A team: ``(n_ranks, rank, stride)`` view over a communicator (NCCL's
    struct ncclTeam): n_ranks members, the caller is member ``rank``,
    neighbours are ``stride`` world ranks apart. Made by
    :attr:`Communicator.team_world`, ``team_lsa`` and ``team_rail``."""

    n_ranks: int
    rank: int
    stride: int


def as_team(team: NCCLTeam, argument: str = "team") -> tuple:
    """team as the (n_ranks, rank, stride) tuple the C calls take; the
    error names `argument`."""
    if not isinstance(team, NCCLTeam):
        raise NcclInvalid(f"{argument}: expected an NCCLTeam, got {type(team).__name__}")
    return astuple(team)


class TeamsMixin:
    """The team properties and rank conversions of Communicator."""

    def _live(self) -> int:  # provided by Communicator
        raise NotImplementedError

    @property
    def team_world(self) -> NCCLTeam:
        """The world team: every rank, stride 1."""
        return NCCLTeam(*raw.ncore_comm_team_world(self._live()))

    @property
    def team_lsa(self) -> NCCLTeam:
        """This rank's load/store-accessible team (all ranks on the host
        backend, the NVLink domain on NCCL)."""
        return NCCLTeam(*raw.ncore_comm_team_lsa(self._live()))

    @property
    def team_rail(self) -> NCCLTeam:
        """This rank's rail team: the ranks with its index in every LSA team."""
        return NCCLTeam(*raw.ncore_comm_team_rail(self._live()))

    def team_rank_to_world(self, team: NCCLTeam, team_rank: int) -> int:
        """The rank in this communicator of member ``team_rank`` of ``team``.
        Raises NcclInvalid for a malformed team or a member outside it."""
        return raw.ncore_comm_team_rank_to_world(self._live(), as_team(team), team_rank)

    def team_rank_to_lsa(self, team: NCCLTeam, team_rank: int) -> int:
        """The index in :attr:`team_lsa` of member ``team_rank`` of ``team``.
        Raises NcclInvalid when that member is not in this rank's LSA team
        (NCCL would answer an out-of-range index)."""
        return raw.ncore_comm_team_rank_to_lsa(self._live(), as_team(team), team_rank)
