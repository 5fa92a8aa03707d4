"""Communicator control: revoke, grow, suspend / resume, memory statistics,
properties, scalable init, and the fields ABI 1.1 added to the config and
the device-communicator requirements (host backend)."""

from __future__ import annotations

import numpy as np
import pytest

import ncore

from conftest import run_ranks


def _control(comm):
    r, n = comm.rank, comm.nranks
    props = (comm.cuda_dev, comm.nvml_dev, comm.device_api_support,
             comm.multimem_support, comm.n_lsa_teams, comm.host_rma_support)
    comm.suspend(ncore.CommSuspendFlag.MEM)
    x = np.ones(1, dtype=np.int32)
    with pytest.raises(ncore.NcclInvalidUsage) as suspended:
        comm.allreduce(x, x, ncore.SUM)
    comm.resume()
    with pytest.raises(ncore.NcclInvalidUsage):
        comm.resume()
    total = comm.get_mem_stat(ncore.NcclCommMemStat.GPU_MEM_TOTAL)
    persist = comm.get_mem_stat(ncore.NcclCommMemStat.GPU_MEM_PERSIST)
    with pytest.raises(ncore.NcclInvalid):
        comm.get_mem_stat(9)
    # Grow: rank n-1 leaves, then joins back through a grow.
    alone = comm.split(0 if r < n - 1 else None, key=r)
    uid = bytearray(128)
    if r == 0:
        uid[:] = alone.get_unique_id().as_bytes
        with pytest.raises(ncore.NcclInvalidUsage):
            alone.get_unique_id()
    buf = np.frombuffer(uid, dtype=np.uint8).copy()
    comm.broadcast(buf, buf, root=0)
    grown_id = ncore.UniqueId(buf.tobytes())
    if r < n - 1:
        grown = alone.grow(n, grown_id if r == 0 else None)
    else:
        # A new rank has no parent: its config names the world's backend.
        grown = ncore.Communicator().grow(n, grown_id, rank=n - 1,
                                          config=ncore.NCCLConfig(backend=comm.backend))
    s = np.array([r + 1], dtype=np.int64)
    grown.allreduce(s, s, ncore.SUM)
    out = (props, str(suspended.value), total, persist, grown.rank, grown.nranks,
           int(s[0]))
    grown.destroy()
    if alone.is_valid:
        alone.destroy()
    comm.revoke()
    with pytest.raises(ncore.NcclInvalidUsage) as revoked:
        comm.allreduce(x, x, ncore.SUM)
    return out + ("revoked" in str(revoked.value),)


def test_communicator_control_on_three_ranks():
    results = run_ranks(3, _control)
    for r, (props, suspended, total, persist, rank, size, s, revoked) in enumerate(results):
        assert props == (-1, -1, True, False, 1, True)
        assert "suspended" in suspended
        assert total > 0 and persist == total
        assert (rank, size, s) == (r, 3, 6)
        assert revoked


def _scalable(comm):
    r = comm.rank
    ids = []
    for root in (0, 1):
        data = np.frombuffer(ncore.get_unique_id(comm.backend).as_bytes if r == root
                             else bytes(128), dtype=np.uint8).copy()
        comm.broadcast(data, data, root=root)
        ids.append(ncore.UniqueId(data.tobytes()))
    scaled = ncore.Communicator.init(comm.nranks, r, ids,
                                     ncore.NCCLConfig(backend=comm.backend))
    v = np.array([1], dtype=np.int32)
    scaled.allreduce(v, v, ncore.SUM)
    scaled.destroy()
    return int(v[0])


def test_init_with_several_ids_is_scalable_init():
    assert run_ranks(2, _scalable) == [2, 2]


def test_newer_config_and_requirement_fields_and_flags():
    config = ncore.NCCLConfig(num_rma_ctx=2, graph_usage_mode=1, max_p2p_peers=4,
                              graph_stream_ordering=1)
    c = config.to_c()
    assert (c.num_rma_ctx, c.graph_usage_mode, c.max_p2p_peers,
            c.graph_stream_ordering) == (2, 1, 4, 1)
    assert ncore.NCCLConfig().to_c().num_rma_ctx == ncore.raw.NCORE_CONFIG_UNDEF_INT
    req = ncore.NCCLDevCommRequirements()
    assert req.gin_context_count is None
    raw_req = req.to_c()
    assert raw_req.gin_context_count == ncore.raw.NCORE_CONFIG_UNDEF_INT
    assert raw_req.gin_queue_depth == ncore.raw.NCORE_CONFIG_UNDEF_INT
    assert ncore.NCCLDevCommRequirements(gin_queue_depth=3).to_c().gin_queue_depth == 3
    assert int(ncore.WindowFlag.STRICT_ORDERING) == 2
    assert int(ncore.CommSuspendFlag.MEM) == 1
    assert int(ncore.NcclCommMemStat.GPU_MEM_TOTAL) == 3


def test_config_fields_of_nccl_2_31_and_2_32_reach_the_c_struct():
    config = ncore.NCCLConfig(launch_order_implicit=True, num_rma_sig=4, rma_eager_init=False,
                              host_cft_mode=ncore.NcclHostCftMode.FALLBACK,
                              nvls_host_mode=ncore.NcclNvlsHostMode.DISABLE_TRANSPORT
                              | ncore.NcclNvlsHostMode.DISABLE_SYMMETRIC_MULTIMEM)
    c = config.to_c()
    assert (c.launch_order_implicit, c.num_rma_sig, c.rma_eager_init, c.host_cft_mode,
            c.nvls_host_mode) == (1, 4, 0, 3, 3)
    unset = ncore.NCCLConfig().to_c()
    undef = ncore.raw.NCORE_CONFIG_UNDEF_INT
    assert (unset.launch_order_implicit, unset.num_rma_sig, unset.rma_eager_init,
            unset.host_cft_mode, unset.nvls_host_mode) == (undef,) * 5
    # DEFAULT is NCCL's default, the same as leaving the field unset.
    assert ncore.NCCLConfig(host_cft_mode=ncore.NcclHostCftMode.DEFAULT).to_c() \
        .host_cft_mode == undef


def _properties_and_config(comm):
    props = comm.properties
    # The host backend accepts NCCL 2.31 / 2.32's config fields and ignores them.
    config = ncore.NCCLConfig(backend=comm.backend, launch_order_implicit=True,
                              num_rma_sig=2, rma_eager_init=True,
                              host_cft_mode=ncore.NcclHostCftMode.DISABLE,
                              nvls_host_mode=ncore.NcclNvlsHostMode.DISABLE)
    child = comm.split(0, key=comm.rank, config=config)
    child_hash = child.properties.comm_hash
    child.destroy()
    return props, child_hash


def test_properties_on_the_host_backend():
    results = run_ranks(2, _properties_and_config)
    (p0, child0), (p1, child1) = results
    assert isinstance(p0, ncore.NCCLCommProperties)
    assert (p0.rank, p1.rank, p0.n_ranks) == (0, 1, 2)
    assert (p0.cuda_dev, p0.nvml_dev, p0.n_lsa_teams) == (-1, -1, 1)
    assert p0.device_api_support and p0.host_rma_support and not p0.multimem_support
    assert p0.gin_type == p0.railed_gin_type == ncore.NcclGinType.NONE
    # One hash per communicator, the same on all its ranks.
    assert p0.comm_hash == p1.comm_hash != 0
    assert child0 == child1 != p0.comm_hash
    assert p0.gin_connection_type == ncore.NcclGinConnectionType.NONE
    assert (p0.gin_min_stride, p0.available_gin_types, p0.dev_comm_runtime_version_size) \
        == (0, frozenset(), 0)
    assert (p0.cft_support, p0.cft_multicast_support, p0.cft_counted_support) \
        == (False, False, False)


def test_window_flags_of_nccl_2_32_on_the_host_backend(comm1):
    assert (int(ncore.WindowFlag.GIN_ONLY), int(ncore.WindowFlag.CFT_COUNTED)) == (4, 8)
    buffer = np.zeros(64, dtype=np.float32)
    # The host backend's one-sided calls are its GIN: GIN_ONLY registers.
    window = comm1.register_window(buffer, flags=ncore.WindowFlag.GIN_ONLY)
    assert window.flags is ncore.WindowFlag.GIN_ONLY
    window.close()
    # No Compute Fabric Transport on one host.
    with pytest.raises(ncore.NcclNotSupported, match="CFT_COUNTED"):
        comm1.register_window(buffer, flags=ncore.WindowFlag.CFT_COUNTED)
    with pytest.raises(ncore.NcclInvalid, match="flags"):
        comm1.register_window(buffer, flags=16)
