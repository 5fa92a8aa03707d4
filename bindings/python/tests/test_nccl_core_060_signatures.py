"""nccl4py 0.6.0's documented nccl.core surface, through ``import ncore as nccl``:
every name exists, every function, method and constructor takes 0.6.0's
parameters in 0.6.0's order under 0.6.0's keyword names with 0.6.0's optional
parameters optional, every documented attribute and enum member exists, and
every enum member has 0.6.0's value.

Where the table comes from (names, parameters, defaults and values only):
NVIDIA's nccl4py 0.6.0 documentation as published with NCCL 2.32
(docs.nvidia.com/deeplearning/nccl/user-guide/docs/nccl4py/: configuration,
communicator/class, communicator/collectives, communicator/p2p,
communicator/registration, communicator/device_setup, resources, types,
versions, parameters, and the index genindex.html that lists every
nccl.core name), NVIDIA/nccl's release notes for nccl4py 0.4.1, 0.5.0 and
0.6.0, NVIDIA/nccl bindings/nccl4py/nccl/core/team.py and params.py
(commit 889806836097808572f87a2019eefd01f27aae68), and src/nccl.h.in of
2.32 for the window flag values. Rows that 0.6.0's pages show unchanged
from 0.3.1 (lifecycle, group, memory, interop) are 0.3.1's rows of
test_nccl_core_signatures.py, whose check this file reuses. Not here:
nccl.core.device.cute (CuTe DSL device bindings, e.g. 0.6.0's
ThreadScope.THREAD = 10), which ncore does not provide (README.md says why).

The table is written as 0.6.0 documents it: nccl.core.X is ncore.X, and
``resources.`` / ``interop.`` name the submodules. The table syntax is
test_nccl_core_signatures.py's: "=" marks a default, "*" starts the
keyword-only parameters.

NOT_PROVIDED_YET lists the documented names ncore does not provide yet,
each with the reason (bindings/python/README.md says the same); each of
its rows runs as a strict xfail, so a row that starts passing fails until
it is taken out of the list."""

from __future__ import annotations

import collections.abc
import enum
import importlib
import inspect

import pytest

import ncore
from test_nccl_core_signatures import check_signature

_COLLECTIVE_TAIL = "*, stream=, config="

NCCL4PY_060_SIGNATURES = {
    # communicator: construction and lifecycle (0.3.1's rows, unchanged)
    "Communicator": "ptr=",
    "Communicator.init": "nranks, rank, unique_id, config=",
    "Communicator.init_all": "devices=",
    "Communicator.initialize": "nranks, rank, unique_id, config=",
    "Communicator.split": "color=, key=, config=",
    "Communicator.shrink": "exclude_ranks=, config=, flag=",
    "Communicator.get_unique_id": "",
    "Communicator.grow": "nranks, unique_id=, rank=, config=",
    "Communicator.destroy": "",
    "Communicator.abort": "",
    "Communicator.finalize": "",
    "Communicator.revoke": "flags=",
    "Communicator.suspend": "flags=",
    "Communicator.resume": "",
    # communicator/p2p
    "Communicator.send": "sendbuf, peer, *, stream=",
    "Communicator.recv": "recvbuf, peer, *, stream=",
    "Communicator.wait_signal": "descs, *, stream=",
    "Communicator.signal": "peer, signal_index=, context=, flags=, *, stream=",
    "Communicator.put_signal": "local_buffer, peer, peer_window, peer_window_offset=, "
    "signal_index=, context=, flags=, *, stream=",
    "WaitSignalDesc": "peer, op_count=, signal_index=, context=",
    # communicator/collectives: 0.5.0 added config= to each
    "Communicator.allreduce": "sendbuf, recvbuf, op, " + _COLLECTIVE_TAIL,
    "Communicator.broadcast": "sendbuf, recvbuf, root, " + _COLLECTIVE_TAIL,
    "Communicator.reduce": "sendbuf, recvbuf, op, root=, " + _COLLECTIVE_TAIL,
    "Communicator.allgather": "sendbuf, recvbuf, " + _COLLECTIVE_TAIL,
    "Communicator.reduce_scatter": "sendbuf, recvbuf, op, " + _COLLECTIVE_TAIL,
    "Communicator.alltoall": "sendbuf, recvbuf, " + _COLLECTIVE_TAIL,
    "Communicator.gather": "sendbuf, recvbuf, root=, " + _COLLECTIVE_TAIL,
    "Communicator.scatter": "sendbuf, recvbuf, root, " + _COLLECTIVE_TAIL,
    "Communicator.create_pre_mul_sum": "scalar, datatype=",
    # communicator/registration, device_setup, status
    "Communicator.register_buffer": "buffer",
    "Communicator.register_window": "buffer, flags=",
    "Communicator.create_dev_comm": "requirements=",
    "Communicator.close_all_resources": "",
    "Communicator.get_last_error": "",
    "Communicator.get_async_error": "",
    "Communicator.get_mem_stat": "stat",
    # communicator/class: teams (0.4.1), CFT teams (0.5.0)
    "Communicator.team_rank_to_world": "team, team_rank",
    "Communicator.team_rank_to_lsa": "team, team_rank",
    "Communicator.team_cft": "mode=",
    "NCCLTeam": "n_ranks, rank, stride",
    # configuration
    "NCCLConfig": "*, blocking=, cga_cluster_size=, min_ctas=, max_ctas=, net_name=, "
    "split_share=, traffic_class=, comm_name=, collnet_enable=, cta_policy=, shrink_share=, "
    "nvls_ctas=, n_channels_per_net_peer=, nvlink_centric_sched=, graph_usage_mode=, "
    "num_rma_ctx=, max_p2p_peers=, graph_stream_ordering=, launch_order_implicit=, "
    "num_rma_sig=, rma_eager_init=, host_cft_mode=, nvls_host_mode=",
    "NCCLCollConfig": "*, min_ctas=, max_ctas=, nvls_ctas=, cga_cluster_size=, alg_selection=, "
    "force_alg_selection=, cta_policy=, user_profiler_tag=, launch_completion_event=, "
    "vendor_options=",
    "VendorOption": "vendor_id, option_id, int_value=, str_value=, raw_value=",
    "NCCLDevCommRequirements": "*, lsa_multimem=, barrier_count=, lsa_barrier_count=, "
    "rail_gin_barrier_count=, lsa_ll_a2a_block_count=, lsa_ll_a2a_slot_count=, "
    "gin_force_enable=, gin_context_count=, gin_signal_count=, gin_counter_count=, "
    "gin_connection_type=, gin_exclusive_contexts=, gin_queue_depth=, gin_traffic_class=, "
    "world_gin_barrier_count=, gin_strong_signals_required=, gin_va_signals_required=, "
    "gin_custom_stride=, gin_type=, cft_caps=, cft_barrier_count=, teams=, resources=",
    "TeamRequirement": "team, multimem=",
    "LsaBarrierRequirement": "team, n_barriers",
    "GinBarrierRequirement": "team, n_barriers",
    "LLA2ARequirement": "n_blocks, max_elements, max_element_size",
    "NCCLCommProperties": "*, rank, n_ranks, cuda_dev, nvml_dev, device_api_support, "
    "multimem_support, gin_type, n_lsa_teams, host_rma_support, railed_gin_type, comm_hash=, "
    "gin_min_stride=, gin_connection_type=, available_gin_types=, "
    "dev_comm_runtime_version_size=, cft_support=, cft_multicast_support=, "
    "cft_counted_support=",
    # resources: 0.6.0's constructors take the communicator object as comm
    "resources.CommResource": "comm",
    "resources.CommResource.close": "",
    "RegisteredBufferHandle": "comm, buffer_ptr, size",
    "RegisteredWindowHandle": "comm, buffer_ptr, size, flags=",
    "RegisteredWindowHandle.get_lsa_multimem_device_pointer": "offset=",
    "RegisteredWindowHandle.get_multimem_device_pointer": "multimem, offset=",
    "RegisteredWindowHandle.get_lsa_device_pointer": "lsa_rank, offset=",
    "RegisteredWindowHandle.get_peer_device_pointer": "peer, offset=",
    "RegisteredWindowHandle.get_multimem_le_info": "offset=",
    "RegisteredWindowHandle.get_cft_le_info": "peer_cft, cft_team, offset=",
    "RegisteredWindowHandle.get_peer_le_info": "peer, offset=",
    "CustomRedOp": "comm, scalar_ptr, datatype, residence",
    "DevCommResource": "comm, reqs_lowpp, team_multimem_lowpp=, resource_handle_lowpps=",
    "DevCommResource.multimem_handle": "team",
    # group, memory (0.3.1's rows)
    "group_start": "",
    "group_end": "*, simulate=",
    "group": "",
    "GroupSimInfo": "estimated_time",
    "mem_alloc": "size, device=",
    "mem_free": "buf",
    # types, utils
    "NcclInvalid": "msg",
    "NcclDataType.from_numpy_dtype": "dtype",
    "UniqueId": "_internal=",
    "UniqueId.from_bytes": "b",
    "get_unique_id": "empty=",
    "get_error_string": "nccl_result",
    # versions and parameters (0.4.1)
    "get_version": "",
    "show_versions": "",
    "VersionInfo": "nccl4py, nccl_bindings, libnccl",
    "dump_params": "",
    # interop (0.3.1's rows)
    "interop.cupy.empty": "shape, dtype=, order=",
    "interop.cupy.resolve_array": "array",
    "interop.torch.empty": "*size, dtype=, device=, morder=",
    "interop.torch.resolve_tensor": "tensor",
}

NCCL4PY_060_ATTRIBUTES = {
    "Communicator": "ptr is_valid nranks device rank cuda_dev nvml_dev device_api_support "
    "multimem_support gin_type n_lsa_teams host_rma_support railed_gin_type properties "
    "team_world team_lsa team_rail team_cft_multimem",
    "NCCLTeam": "n_ranks rank stride",
    "TeamRequirement": "team multimem",
    "LsaBarrierRequirement": "team n_barriers",
    "GinBarrierRequirement": "team n_barriers",
    "LLA2ARequirement": "n_blocks max_elements max_element_size",
    "NCCLCommProperties": "rank n_ranks cuda_dev nvml_dev device_api_support multimem_support "
    "gin_type n_lsa_teams host_rma_support railed_gin_type comm_hash gin_min_stride "
    "gin_connection_type available_gin_types dev_comm_runtime_version_size cft_support "
    "cft_multicast_support cft_counted_support",
    "resources.CommResource": "close is_valid",
    "RegisteredBufferHandle": "handle size close is_valid",
    "RegisteredWindowHandle": "is_valid handle size user_ptr close",
    "CustomRedOp": "op close is_valid",
    "DevCommResource": "close is_valid ptr multimem_handle resource_handles",
    "CftLeInfo": "le_id le_offset",
    "VendorOption": "vendor_id option_id int_value str_value raw_value",
    "WaitSignalDesc": "peer op_count signal_index context",
    "UniqueId": "as_bytes as_ndarray",
    "NcclDataType": "itemsize numpy_dtype",
    "GroupSimInfo": "estimated_time",
    "VersionInfo": "nccl4py nccl_bindings libnccl",
    "LibraryInfo": "version cuda_variant path",
    "CommSuspendFlag": "MEM",
    "NcclCommMemStat": "GPU_MEM_SUSPEND GPU_MEM_SUSPENDED GPU_MEM_PERSIST GPU_MEM_TOTAL",
}

# Names 0.6.0 documents that are values, not callables (type aliases, the
# device resource handle classes, the parameter mapping).
NCCL4PY_060_NAMES = ["NcclBufferSpec", "NcclStreamSpec", "NcclScalarSpec", "NcclDeviceSpec",
                     "NcclEventSpec", "MultimemHandle", "LsaBarrierHandle", "GinBarrierHandle",
                     "LLA2AHandle", "params"]

# Each enum's members and values as 0.6.0 documents them (WindowFlag's two
# new flags: NCCL_WIN_GIN_ONLY 0x04, NCCL_WIN_CFT_COUNTED 0x08 of nccl.h 2.32).
NCCL4PY_060_ENUMS = {
    "NcclDataType": dict(INT8=0, UINT8=1, INT32=2, UINT32=3, INT64=4, UINT64=5, FLOAT16=6,
                         FLOAT32=7, FLOAT64=8, BFLOAT16=9, FLOAT8E4M3=10, FLOAT8E5M2=11),
    "NcclRedOp": dict(SUM=0, PROD=1, MAX=2, MIN=3, AVG=4),
    "CTAPolicy": dict(DEFAULT=0, EFFICIENCY=1, ZERO=2),
    "WindowFlag": dict(DEFAULT=0, COLL_SYMMETRIC=1, STRICT_ORDERING=2, GIN_ONLY=4,
                       CFT_COUNTED=8),
    "CommShrinkFlag": dict(DEFAULT=0, ABORT=1),
    "NcclGinType": dict(NONE=0, PROXY=2, GDAKI=3, GPI=4, EFA_GDA=5),
    "NcclGinConnectionType": dict(NONE=0, FULL=1, RAIL=2, CUSTOM_STRIDE=3),
    "NcclHostCftMode": dict(DEFAULT=-2147483648, ENABLE=1, DISABLE=2, FALLBACK=3),
    "NcclNvlsHostMode": dict(ENABLE=0, DISABLE_TRANSPORT=1, DISABLE_SYMMETRIC_MULTIMEM=2,
                             DISABLE=2147483647),
    "NcclCftTeamMode": dict(FLAT=0, HIER_MULTIMEM=1, HIER_LSA=2),
    "NcclCftCap": dict(NONE=0, CFT=1, MULTIMEM=2),
}

# What nccl4py 0.6.0 documents and ncore does not provide yet: (kind, name)
# -> why. A row here runs as a strict xfail.
NOT_PROVIDED_YET: dict = {}


def resolve(name: str):
    """ncore's object for a documented nccl.core name: nccl.core.X is ncore.X;
    a first part that is a submodule (resources, interop.cupy) is imported."""
    obj = ncore
    for part in name.split("."):
        if inspect.ismodule(obj) and not hasattr(obj, part):
            try:
                obj = importlib.import_module(f"{obj.__name__}.{part}")
                continue
            except ImportError:
                pass
        obj = getattr(obj, part)
    return obj


def _cases(kind: str, names):
    for name in sorted(names):
        owner = NOT_PROVIDED_YET.get((kind, name))
        marks = [pytest.mark.xfail(strict=True, reason=owner)] if owner else []
        yield pytest.param(name, id=name, marks=marks)


@pytest.mark.parametrize("name", _cases("signature", NCCL4PY_060_SIGNATURES))
def test_signature_takes_nccl4py_060_parameters(name, monkeypatch):
    import test_nccl_core_signatures as base
    monkeypatch.setattr(base, "resolve", resolve)
    # ncore's UniqueId takes its bytes positionally as data (0.3.1's table).
    monkeypatch.setitem(base.POSITIONAL_RENAMED, ("UniqueId", 0), "data")
    check_signature(name, NCCL4PY_060_SIGNATURES[name])


@pytest.mark.parametrize("name", _cases("attributes", NCCL4PY_060_ATTRIBUTES))
def test_documented_attributes_exist(name):
    cls = resolve(name)
    fields = set(getattr(cls, "__dataclass_fields__", {}))
    missing = [a for a in NCCL4PY_060_ATTRIBUTES[name].split()
               if a not in fields and inspect.getattr_static(cls, a, None) is None]
    assert not missing, f"{name} lacks {missing}"


@pytest.mark.parametrize("name", _cases("name", NCCL4PY_060_NAMES))
def test_documented_name_exists(name):
    assert resolve(name) is not None


@pytest.mark.parametrize("name", _cases("enum", NCCL4PY_060_ENUMS))
def test_enum_members_have_nccl4py_060_values(name):
    cls = resolve(name)
    assert issubclass(cls, enum.Enum), f"{name} is not an enum"
    wrong = {member: (getattr(cls, member, None), value)
             for member, value in NCCL4PY_060_ENUMS[name].items()
             if getattr(cls, member, None) is None or int(getattr(cls, member)) != value}
    assert not wrong, f"{name}: (ours, 0.6.0's) {wrong}"


def test_expected_missing_rows_name_rows_of_the_table():
    tables = {"signature": NCCL4PY_060_SIGNATURES, "attributes": NCCL4PY_060_ATTRIBUTES,
              "name": NCCL4PY_060_NAMES, "enum": NCCL4PY_060_ENUMS}
    stale = [key for key in NOT_PROVIDED_YET if key[1] not in tables[key[0]]]
    assert not stale, f"rows of NOT_PROVIDED_YET not in the table: {stale}"


def test_params_is_a_read_only_mapping_of_strings():
    params = resolve("params")
    assert isinstance(params, collections.abc.Mapping)
    assert not isinstance(params, collections.abc.MutableMapping)
    for key in list(params)[:5]:
        assert isinstance(key, str) and isinstance(params[key], str)


def test_communicator_ptr_defaults_to_none():
    assert inspect.signature(ncore.Communicator).parameters["ptr"].default is None
    assert not ncore.Communicator().is_valid and not ncore.Communicator(None).is_valid
    assert not ncore.Communicator(ptr=None).is_valid


def test_get_version_is_a_version_info(capsys):
    versions = ncore.get_version()
    assert isinstance(versions, ncore.VersionInfo)
    assert str(versions.nccl4py) == ncore.__version__
    assert versions.nccl_bindings is not None
    info = ncore.get_library_info()
    if info.nccl_version == 0:
        assert versions.libnccl is None
    else:
        assert isinstance(versions.libnccl, ncore.LibraryInfo)
        assert str(versions.libnccl.path) == info.nccl_path
    ncore.show_versions()
    out = capsys.readouterr().out
    assert "nccl4py" in out and "nccl_bindings" in out and "libnccl" in out
