"""CFT through ncore (nccl.core 0.5.0+'s Communicator.team_cft,
team_cft_multimem, RegisteredWindowHandle.get_multimem_le_info,
get_cft_le_info, get_peer_le_info, CftLeInfo, NcclCftTeamMode, NcclCftCap)
on the host backend: the arguments are checked, then every call raises
NcclNotSupported naming NCCL 2.31 (one host has no compute fabric)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import ncore


@pytest.fixture
def window(comm1):
    win = comm1.register_window(np.zeros(64, dtype=np.uint8))
    yield win
    win.close()


def test_cft_teams_are_refused_on_the_host_naming_nccl_2_31(comm1):
    for call in (lambda: comm1.team_cft(), lambda: comm1.team_cft(ncore.NcclCftTeamMode.HIER_LSA),
                 lambda: comm1.team_cft_multimem):
        with pytest.raises(ncore.NcclNotSupported, match="NCCL 2.31"):
            call()


def test_a_bad_team_mode_is_invalid_before_the_backend_answers(comm1):
    with pytest.raises(ncore.NcclInvalid, match="mode: 7"):
        comm1.team_cft(7)


def test_logical_endpoint_queries_check_then_refuse_on_the_host(window):
    team = ncore.NCCLTeam(1, 0, 1)
    with pytest.raises(ncore.NcclInvalid, match="offset"):
        window.get_multimem_le_info(offset=65)
    with pytest.raises(ncore.NcclInvalid, match="peer_cft"):
        window.get_cft_le_info(1, team)
    with pytest.raises(ncore.NcclInvalid, match="peer"):
        window.get_peer_le_info(1)
    with pytest.raises(ncore.NcclInvalid, match="NCCLTeam"):
        window.get_cft_le_info(0, (1, 0, 1))
    for call, name in ((lambda: window.get_multimem_le_info(), "multimem_le_info"),
                       (lambda: window.get_cft_le_info(0, team, offset=8), "cft_le_info"),
                       (lambda: window.get_peer_le_info(0, offset=64), "peer_le_info")):
        with pytest.raises(ncore.NcclNotSupported, match=name) as raised:
            call()
        assert "NCCL 2.31" in str(raised.value)


def test_a_logical_endpoint_address_is_a_frozen_value():
    info = ncore.CftLeInfo(le_id=3, le_offset=4096)
    assert (info.le_id, info.le_offset) == (3, 4096)
    with pytest.raises(dataclasses.FrozenInstanceError):
        info.le_id = 4  # type: ignore[misc]


def test_cft_and_gin_enums_carry_nccls_values():
    assert [int(m) for m in ncore.NcclCftTeamMode] == [0, 1, 2]
    assert int(ncore.NcclCftCap.CFT | ncore.NcclCftCap.MULTIMEM) == 3
    assert int(ncore.NcclGinType.EFA_GDA) == 5
    assert int(ncore.NcclGinConnectionType.CUSTOM_STRIDE) == 3
