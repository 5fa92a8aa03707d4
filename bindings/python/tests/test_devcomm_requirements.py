"""A device communicator's team and resource requirements (nccl4py 0.4.1 /
0.6.0: TeamRequirement, LsaBarrierRequirement, GinBarrierRequirement,
LLA2ARequirement, DevCommResource.resource_handles / multimem_handle,
RegisteredWindowHandle.get_multimem_device_pointer) on the host backend:
what reaches the C struct, what is refused and how."""

from __future__ import annotations

import pytest

import ncore
from ncore import raw
from ncore.interop import numpy as nnp


def test_requirements_fill_the_c_arrays():
    team = ncore.NCCLTeam(4, 1, 2)
    requirements = ncore.NCCLDevCommRequirements(
        teams=(ncore.TeamRequirement(team, multimem=True),),
        resources=(ncore.LsaBarrierRequirement(team, 3), ncore.LLA2ARequirement(2, 16, 8),
                   ncore.GinBarrierRequirement(team, 5)))
    c = requirements.to_c()
    assert (c.team_count, c.resource_count) == (1, 3)
    first = raw.ncore_py_team_requirements_getitem(c.teams, 0)
    assert (first.team.n_ranks, first.team.rank, first.team.stride, first.multimem) == (4, 1, 2, 1)
    kinds = [raw.ncore_py_resource_requirements_getitem(c.resources, i) for i in range(3)]
    assert [k.kind for k in kinds] == [raw.NCORE_DEV_RESOURCE_LSA_BARRIER,
                                        raw.NCORE_DEV_RESOURCE_LL_A2A,
                                        raw.NCORE_DEV_RESOURCE_GIN_BARRIER]
    assert (kinds[0].n_barriers, kinds[0].team.stride) == (3, 2)
    assert (kinds[1].n_blocks, kinds[1].max_elements, kinds[1].max_element_size) == (2, 16, 8)
    assert (kinds[1].team.n_ranks, kinds[1].n_barriers) == (0, 0)
    assert kinds[2].n_barriers == 5
    # NCCL 2.32's fields: carried as ints, unset by default.
    assert c.gin_custom_stride == raw.NCORE_CONFIG_UNDEF_INT
    c = ncore.NCCLDevCommRequirements(gin_custom_stride=2, gin_type=ncore.NcclGinType.PROXY,
                                      cft_caps=3, cft_barrier_count=4).to_c()
    assert (c.gin_custom_stride, c.gin_type, c.cft_caps, c.cft_barrier_count) == (2, 2, 3, 4)


def test_a_wrong_requirement_type_is_named():
    with pytest.raises(ncore.NcclInvalid, match=r"resources\[0\]: expected"):
        ncore.NCCLDevCommRequirements(resources=(ncore.TeamRequirement(ncore.NCCLTeam(1, 0, 1)),)).to_c()
    with pytest.raises(ncore.NcclInvalid, match=r"teams\[0\].team: expected an NCCLTeam"):
        ncore.NCCLDevCommRequirements(teams=(ncore.TeamRequirement((1, 0, 1)),)).to_c()


def test_bad_values_are_refused_naming_the_field(comm1):
    lsa = comm1.team_lsa
    for requirements, text in [
            (ncore.NCCLDevCommRequirements(resources=(ncore.LsaBarrierRequirement(lsa, 0),)),
             "resources[0].n_barriers: 0"),
            (ncore.NCCLDevCommRequirements(resources=(ncore.LLA2ARequirement(1, -1, 8),)),
             "resources[0].max_elements: -1"),
            (ncore.NCCLDevCommRequirements(teams=(ncore.TeamRequirement(ncore.NCCLTeam(2, 0, 1)),)),
             "not a team of this communicator"),
            (ncore.NCCLDevCommRequirements(teams=(ncore.TeamRequirement(lsa),),
                                           team_requirements_list=8),
             "team_requirements_list"),
            (ncore.NCCLDevCommRequirements(cft_caps=8), "cft_caps"),
    ]:
        with pytest.raises(ncore.NcclInvalid) as caught:
            comm1.create_dev_comm(requirements)
        assert text in str(caught.value)


def test_host_backend_has_no_device_resources_or_multimem(comm1):
    lsa = comm1.team_lsa
    for requirements, text in [
            (ncore.NCCLDevCommRequirements(resources=(ncore.LsaBarrierRequirement(lsa, 1),)),
             "no device resources"),
            (ncore.NCCLDevCommRequirements(teams=(ncore.TeamRequirement(lsa, multimem=True),)),
             "multimem"),
            (ncore.NCCLDevCommRequirements(gin_type=ncore.NcclGinType.PROXY), "gin_type"),
    ]:
        with pytest.raises(ncore.NcclNotSupported) as caught:
            comm1.create_dev_comm(requirements)
        assert text in str(caught.value)


def test_teams_without_multimem_and_the_handles(comm1):
    world = comm1.team_world
    requirements = ncore.NCCLDevCommRequirements(
        teams=(ncore.TeamRequirement(world), ncore.TeamRequirement(comm1.team_lsa)))
    dev = comm1.create_dev_comm(requirements)
    assert dev.resource_handles == ()
    assert dev.info.resource_count == 0
    with pytest.raises(KeyError, match="not requested with multimem"):
        dev.multimem_handle(world)
    window = comm1.register_window(nnp.empty(64, dtype="float32"))
    assert window.get_multimem_device_pointer(ncore.MultimemHandle(0)) is None
    assert window.get_multimem_device_pointer(ncore.MultimemHandle(0), offset=8) is None
    with pytest.raises(ncore.NcclInvalid, match="multimem: expected a MultimemHandle"):
        window.get_multimem_device_pointer(0)
    with pytest.raises(ncore.NcclInvalid, match="offset"):
        window.get_multimem_device_pointer(ncore.MultimemHandle(0), offset=1 << 20)
    window.close()
    dev.close()
    with pytest.raises(RuntimeError):
        dev.resource_handles
    with pytest.raises(RuntimeError):
        dev.multimem_handle(world)


def test_handle_classes_carry_nccl4py_attributes():
    assert ncore.LsaBarrierHandle(4096, 3).n_barriers == 3
    assert ncore.GinBarrierHandle(7).signal0 == 7
    assert ncore.LLA2AHandle(8192, 32).n_slots == 32
    assert ncore.MultimemHandle(0).mc_base_pointer == 0
