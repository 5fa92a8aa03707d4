"""CFT, Compute Fabric Transport (ncore/cft.h; nccl.core 0.5.0+'s
Communicator.team_cft, team_cft_multimem, RegisteredWindowHandle
.get_multimem_le_info, get_cft_le_info, get_peer_le_info and CftLeInfo).
NCCL 2.31+ answers them where the GPUs have CFT logical endpoints; the host
backend and older NCCL raise NcclNotSupported naming NCCL 2.31."""

from __future__ import annotations

from dataclasses import dataclass

from ._lib import raw
from ._types import NcclCftTeamMode
from .team import NCCLTeam, as_team

__all__ = ["CftLeInfo"]


@dataclass(frozen=True)
class CftLeInfo:
    """A logical endpoint address: the endpoint's id and the byte offset in
    it, which a kernel's CFT operations take instead of a pointer."""

    le_id: int
    le_offset: int


class CftTeamsMixin:
    """The CFT teams of Communicator."""

    def _live(self) -> int:  # provided by Communicator
        raise NotImplementedError

    def team_cft(self, mode: NcclCftTeamMode = NcclCftTeamMode.FLAT) -> NCCLTeam:
        """This rank's CFT team in the layout ``mode`` (ncclTeamCft).

        Raises:
            NcclNotSupported: the host backend, or NCCL older than 2.31.
            NcclInvalid: mode is not an NcclCftTeamMode."""
        return NCCLTeam(*raw.ncore_comm_team_cft(self._live(), int(mode)))

    @property
    def team_cft_multimem(self) -> NCCLTeam:
        """This rank's CFT multimem team (ncclTeamCftMultimem); raises as
        :meth:`team_cft`."""
        return NCCLTeam(*raw.ncore_comm_team_cft_multimem(self._live()))


class CftWindowMixin:
    """The logical endpoint queries of RegisteredWindowHandle."""

    _handle: int

    def get_multimem_le_info(self, offset: int = 0) -> CftLeInfo:
        """The multicast logical endpoint address of byte ``offset`` of this
        rank's part (ncclGetMultimemDeviceLeInfo).

        Raises:
            RuntimeError (NcclClosed): the window has been closed.
            NcclInvalid: offset beyond this rank's part.
            NcclNotSupported: the host backend, or NCCL older than 2.31."""
        return CftLeInfo(*raw.ncore_window_multimem_le_info(self._handle, offset))

    def get_cft_le_info(self, peer_cft: int, cft_team: NCCLTeam,
                        offset: int = 0) -> CftLeInfo:
        """The logical endpoint address of byte ``offset`` of the part of
        member ``peer_cft`` of ``cft_team`` (a team from
        Communicator.team_cft; ncclGetCftDeviceLeInfo). Raises as
        :meth:`get_multimem_le_info`, and NcclInvalid for a malformed team or
        a member outside it."""
        return CftLeInfo(*raw.ncore_window_cft_le_info(self._handle, offset, peer_cft,
                                                       as_team(cft_team)))

    def get_peer_le_info(self, peer: int, offset: int = 0) -> CftLeInfo:
        """The logical endpoint address of byte ``offset`` of world rank
        ``peer``'s part (ncclGetPeerDeviceLeInfo). Raises as
        :meth:`get_multimem_le_info`, and NcclInvalid for a peer out of
        range."""
        return CftLeInfo(*raw.ncore_window_peer_le_info(self._handle, offset, peer))
