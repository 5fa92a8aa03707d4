"""A device communicator's team and resource requirements and the handles
NCCL returns for them (nccl4py 0.4.1 / 0.6.0: TeamRequirement,
LsaBarrierRequirement, GinBarrierRequirement, LLA2ARequirement;
MultimemHandle, LsaBarrierHandle, GinBarrierHandle, LLA2AHandle), over
ncore/devcomm.h's ncore_team_requirement_t, ncore_dev_resource_requirement_t,
ncore_dev_resource_handle_t and ncore/window.h's ncore_multimem_handle_t."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from ._errors import NcclInvalid
from ._lib import raw
from .team import NCCLTeam, as_team

__all__ = ["TeamRequirement", "LsaBarrierRequirement", "GinBarrierRequirement",
           "LLA2ARequirement", "MultimemHandle", "LsaBarrierHandle", "GinBarrierHandle",
           "LLA2AHandle"]


@dataclass(frozen=True)
class TeamRequirement:
    """One team's requirement (ncore_team_requirement_t; nccl4py 0.4.1):
    with multimem=True the device communicator gets a multimem handle for
    the team, read back with DevCommResource.multimem_handle(team).
    Requirements for the same team are merged (multimem if any asks)."""

    team: NCCLTeam
    multimem: bool = False


@dataclass(frozen=True)
class LsaBarrierRequirement:
    """n_barriers LSA barriers over team (ncclLsaBarrierCreateRequirement);
    its LsaBarrierHandle is in DevCommResource.resource_handles."""

    team: NCCLTeam
    n_barriers: int


@dataclass(frozen=True)
class GinBarrierRequirement:
    """n_barriers GIN barriers over team (ncclGinBarrierCreateRequirement);
    its GinBarrierHandle is in DevCommResource.resource_handles."""

    team: NCCLTeam
    n_barriers: int


@dataclass(frozen=True)
class LLA2ARequirement:
    """A low-latency all-to-all of n_blocks blocks holding up to
    max_elements elements of at most max_element_size bytes
    (ncclLLA2ACalcSlots + ncclLLA2ACreateRequirement); its LLA2AHandle is in
    DevCommResource.resource_handles."""

    n_blocks: int
    max_elements: int
    max_element_size: int


# C kinds of the resource requirements (ncore_dev_resource_kind_t).
_RESOURCE_KINDS = {LsaBarrierRequirement: "NCORE_DEV_RESOURCE_LSA_BARRIER",
                   GinBarrierRequirement: "NCORE_DEV_RESOURCE_GIN_BARRIER",
                   LLA2ARequirement: "NCORE_DEV_RESOURCE_LL_A2A"}


def _team_c(team: Any, where: str) -> Any:
    c = raw.ncore_team_t()
    c.n_ranks, c.rank, c.stride = as_team(team, where)
    return c


def teams_c(teams: Sequence[Any]) -> Any:
    """A C array of ncore_team_requirement_t (freed with the returned owner)."""
    array = _CArray(raw.new_ncore_py_team_requirements, raw.delete_ncore_py_team_requirements,
                    len(teams))
    for i, requirement in enumerate(teams):
        if not isinstance(requirement, TeamRequirement):
            raise NcclInvalid(f"teams[{i}]: expected a TeamRequirement, got "
                              f"{type(requirement).__name__}")
        c = raw.ncore_team_requirement_t()
        c.struct_size = raw.NCORE_SIZEOF_TEAM_REQUIREMENT
        c.team = _team_c(requirement.team, f"teams[{i}].team")
        c.multimem = int(bool(requirement.multimem))
        raw.ncore_py_team_requirements_setitem(array.pointer, i, c)
    return array


def resources_c(resources: Sequence[Any]) -> Any:
    """A C array of ncore_dev_resource_requirement_t."""
    array = _CArray(raw.new_ncore_py_resource_requirements,
                    raw.delete_ncore_py_resource_requirements, len(resources))
    for i, requirement in enumerate(resources):
        kind = _RESOURCE_KINDS.get(type(requirement))
        if kind is None:
            raise NcclInvalid(f"resources[{i}]: expected an LsaBarrierRequirement, "
                              "GinBarrierRequirement or LLA2ARequirement, got "
                              f"{type(requirement).__name__}")
        c = raw.ncore_dev_resource_requirement_t()
        c.struct_size = raw.NCORE_SIZEOF_DEV_RESOURCE_REQUIREMENT
        c.kind = getattr(raw, kind)
        if isinstance(requirement, LLA2ARequirement):
            c.n_blocks = int(requirement.n_blocks)
            c.max_elements = int(requirement.max_elements)
            c.max_element_size = int(requirement.max_element_size)
        else:
            c.team = _team_c(requirement.team, f"resources[{i}].team")
            c.n_barriers = int(requirement.n_barriers)
        raw.ncore_py_resource_requirements_setitem(array.pointer, i, c)
    return array


class _CArray:
    """A C array made by one of ncore.i's array functions, freed with this
    object (the requirements struct that points into it keeps it)."""

    def __init__(self, new: Any, delete: Any, count: int) -> None:
        self._delete = delete
        self.pointer = new(max(count, 1))

    def __del__(self) -> None:
        self._delete(self.pointer)


@dataclass(frozen=True)
class MultimemHandle:
    """A team's multimem handle (DevCommResource.multimem_handle): the
    multicast base NCCL gave the team, 0 when it gave none (no NVLink
    multicast)."""

    mc_base_pointer: int

    def to_c(self) -> Any:
        c = raw.ncore_multimem_handle_t()
        c.struct_size = raw.NCORE_SIZEOF_MULTIMEM_HANDLE
        c.mc_base_pointer = int(self.mc_base_pointer)
        return c


@dataclass(frozen=True)
class LsaBarrierHandle:
    """An LsaBarrierRequirement's handle: the resource buffer and the
    number of barriers."""

    buf_handle: int
    n_barriers: int


@dataclass(frozen=True)
class GinBarrierHandle:
    """A GinBarrierRequirement's handle: its first GIN signal."""

    signal0: int


@dataclass(frozen=True)
class LLA2AHandle:
    """An LLA2ARequirement's handle: the resource buffer and its slots."""

    buf_handle: int
    n_slots: int


def handle_of(c: Any) -> Any:
    """The handle class for one ncore_dev_resource_handle_t."""
    if c.kind == raw.NCORE_DEV_RESOURCE_LSA_BARRIER:
        return LsaBarrierHandle(c.buf_handle, c.n_barriers)
    if c.kind == raw.NCORE_DEV_RESOURCE_GIN_BARRIER:
        return GinBarrierHandle(c.signal0)
    return LLA2AHandle(c.buf_handle, c.n_slots)
