"""Teams through ncore (nccl.core 0.4.1's NCCLTeam, Communicator.team_world,
team_lsa, team_rail, team_rank_to_world, team_rank_to_lsa) on the host
backend, where the LSA team is every rank and the rail team the rank alone."""

from __future__ import annotations

import dataclasses

import pytest

import ncore
from conftest import run_ranks


def _teams(comm):
    world = comm.team_world
    rows = [(comm.team_rank_to_world(world, i), comm.team_rank_to_lsa(comm.team_lsa, i))
            for i in range(world.n_ranks)]
    evens = ncore.NCCLTeam((comm.nranks + 1) // 2, comm.rank // 2, 2)
    even_1 = comm.team_rank_to_world(evens, 1) if comm.rank % 2 == 0 else None
    return world, comm.team_lsa, comm.team_rail, rows, even_1


def test_teams_are_the_world_lsa_and_rail_views_of_the_ranks():
    for rank, (world, lsa, rail, rows, even_1) in enumerate(run_ranks(3, _teams)):
        assert world == ncore.NCCLTeam(n_ranks=3, rank=rank, stride=1)
        assert lsa == world  # host backend: one LSA team
        assert rail == ncore.NCCLTeam(1, 0, 3)
        assert rows == [(0, 0), (1, 1), (2, 2)]
        assert even_1 == (2 if rank % 2 == 0 else None)


def test_a_team_is_a_frozen_value(comm1):
    team = comm1.team_world
    assert isinstance(team, ncore.NCCLTeam) and team == ncore.NCCLTeam(1, 0, 1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        team.rank = 1  # type: ignore[misc]
    assert len({team, ncore.NCCLTeam(1, 0, 1)}) == 1


def test_bad_teams_and_members_raise_nccl_invalid(comm1):
    world = comm1.team_world
    with pytest.raises(ncore.NcclInvalid, match="team_rank"):
        comm1.team_rank_to_world(world, 1)
    with pytest.raises(ncore.NcclInvalid, match="n_ranks 0"):
        comm1.team_rank_to_lsa(ncore.NCCLTeam(0, 0, 1), 0)
    with pytest.raises(ncore.NcclInvalid, match="team: expected an NCCLTeam"):
        comm1.team_rank_to_world((1, 0, 1), 0)


def test_teams_of_a_destroyed_communicator_raise():
    comm = ncore.Communicator.init(1, 0, ncore.get_unique_id(ncore.Backend.HOST),
                                   ncore.NCCLConfig(backend=ncore.Backend.HOST))
    team = comm.team_world
    comm.destroy()
    with pytest.raises(ncore.NcclError):
        comm.team_world
    with pytest.raises(ncore.NcclError):
        comm.team_rank_to_world(team, 0)
