"""nccl4py 0.5.0 / 0.6.0's communicator configuration and properties,
through ``import ncore as nccl``: the names, parameters, defaults and enum
values of its documentation (nccl.core.NCCLConfig, NcclHostCftMode,
NcclNvlsHostMode, NCCLCommProperties, Communicator.properties), as the 0.3.1
table of test_nccl_core_signatures.py holds the older surface."""

from __future__ import annotations

import inspect

import ncore

# NCCLConfig's fields, in nccl4py 0.6.0's order; every one keyword-only,
# default None. The first three are ncore's own (backend, timeout, device).
NCCL_CONFIG_FIELDS = (
    "blocking cga_cluster_size min_ctas max_ctas net_name split_share traffic_class "
    "comm_name collnet_enable cta_policy shrink_share nvls_ctas n_channels_per_net_peer "
    "nvlink_centric_sched graph_usage_mode num_rma_ctx max_p2p_peers graph_stream_ordering "
    "launch_order_implicit num_rma_sig rma_eager_init host_cft_mode nvls_host_mode").split()

# NCCLCommProperties(*, ...): required first, then the version-marked ones
# (default None).
COMM_PROPERTIES_REQUIRED = (
    "rank n_ranks cuda_dev nvml_dev device_api_support multimem_support gin_type "
    "n_lsa_teams host_rma_support railed_gin_type").split()
COMM_PROPERTIES_OPTIONAL = (
    "comm_hash gin_min_stride gin_connection_type available_gin_types "
    "dev_comm_runtime_version_size cft_support cft_multicast_support "
    "cft_counted_support").split()


def test_nccl_config_takes_nccl4py_0_6_fields_as_keywords():
    params = inspect.signature(ncore.NCCLConfig).parameters
    ours = [name for name in params if name not in ("backend", "timeout", "device")]
    assert ours == NCCL_CONFIG_FIELDS
    for name in NCCL_CONFIG_FIELDS:
        assert params[name].kind is inspect.Parameter.KEYWORD_ONLY, name
        assert params[name].default is None, name


def test_host_cft_and_nvls_host_mode_values():
    # __members__: iterating an IntFlag skips 0 and multi-bit members.
    assert {n: int(m) for n, m in ncore.NcclHostCftMode.__members__.items()} == {
        "DEFAULT": -2147483648, "ENABLE": 1, "DISABLE": 2, "FALLBACK": 3}
    assert {n: int(m) for n, m in ncore.NcclNvlsHostMode.__members__.items()} == {
        "ENABLE": 0, "DISABLE_TRANSPORT": 1, "DISABLE_SYMMETRIC_MULTIMEM": 2,
        "DISABLE": 2147483647}
    both = ncore.NcclNvlsHostMode.DISABLE_TRANSPORT | \
        ncore.NcclNvlsHostMode.DISABLE_SYMMETRIC_MULTIMEM
    assert int(both) == 3


def test_comm_properties_constructor_is_nccl4py_0_6s():
    params = list(inspect.signature(ncore.NCCLCommProperties).parameters.values())
    assert [p.name for p in params] == COMM_PROPERTIES_REQUIRED + COMM_PROPERTIES_OPTIONAL
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params)
    assert all(p.default is inspect.Parameter.empty for p in params[:10])
    assert all(p.default is None for p in params[10:])
    assert isinstance(inspect.getattr_static(ncore.Communicator, "properties"), property)


def test_properties_agree_with_the_single_accessors(comm1):
    props = comm1.properties
    assert (props.rank, props.n_ranks, props.cuda_dev, props.nvml_dev) == \
        (comm1.rank, comm1.nranks, comm1.cuda_dev, comm1.nvml_dev)
    assert (props.device_api_support, props.multimem_support, props.n_lsa_teams,
            props.host_rma_support) == (comm1.device_api_support, comm1.multimem_support,
                                        comm1.n_lsa_teams, comm1.host_rma_support)
    assert (props.gin_type, props.railed_gin_type) == (comm1.gin_type, comm1.railed_gin_type)
    # Fixed for the communicator's lifetime: a frozen value.
    try:
        props.rank = 5
    except AttributeError:
        pass
    else:
        raise AssertionError("NCCLCommProperties is not frozen")
