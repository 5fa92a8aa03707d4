"""nccl.core 0.3.1 names and behaviours that need no peers:
enums, unique ids, devices, mem_alloc, versions, group simulation, config
and requirement fields, modules, bool buffers, operators, descriptors."""

from __future__ import annotations

import ctypes
import dataclasses
import importlib
import importlib.util
import pickle

import numpy as np
import pytest

import ncore
from ncore import _ncore as raw


def test_enums_have_nccl_core_names_and_values():
    assert (ncore.CTAPolicy.DEFAULT, ncore.CTAPolicy.EFFICIENCY, ncore.CTAPolicy.ZERO) == (0, 1, 2)
    assert (ncore.CTAPolicy.Efficiency, ncore.CTAPolicy.Zero) == (1, 2)
    assert ncore.WindowFlag.CollSymmetric is ncore.WindowFlag.COLL_SYMMETRIC
    assert ncore.WindowFlag.StrictOrdering is ncore.WindowFlag.STRICT_ORDERING
    assert ncore.WindowFlag.STRICT_ORDERING == raw.NCORE_WINDOW_STRICT_ORDERING == 2
    # One behaviour, not a set of bits, as in nccl.core.
    assert not issubclass(ncore.CommShrinkFlag, __import__("enum").IntFlag)
    assert (ncore.CommShrinkFlag.Default, ncore.CommShrinkFlag.Abort) == (0, 1)
    assert ncore.CommSuspendFlag.Mem is ncore.CommSuspendFlag.MEM == raw.NCORE_SUSPEND_MEM
    stats = ncore.NcclCommMemStat
    assert (stats.GPU_MEM_SUSPEND, stats.GPU_MEM_SUSPENDED, stats.GPU_MEM_PERSIST,
            stats.GPU_MEM_TOTAL) == (0, 1, 2, 3)
    assert stats.GpuMemTotal is stats.GPU_MEM_TOTAL


def test_data_type_from_numpy_types_and_names():
    for spec in (np.float32, "float32", np.dtype("<f4"), float):
        expected = ncore.FLOAT64 if spec is float else ncore.FLOAT32
        assert ncore.NcclDataType(spec) is expected
    assert ncore.NcclDataType("uint8") is ncore.UINT8
    assert ncore.NcclDataType(7) is ncore.FLOAT32
    with pytest.raises(ValueError):
        ncore.NcclDataType(99)  # an int that is no member stays a ValueError
    with pytest.raises(ncore.NcclInvalid, match="complex"):
        ncore.NcclDataType("complex64")


def test_result_is_nccls_result_type():
    assert ncore.Result.from_status(raw.NCORE_ERR_TIMEOUT) is ncore.Result.Timeout
    assert ncore.Result.from_status(raw.NCORE_IN_PROGRESS) is ncore.Result.InProgress
    assert ncore.Result.from_status(raw.NCORE_ERR_NOT_SUPPORTED) is ncore.Result.InternalError
    assert ncore.get_error_string(ncore.Result.Success) == "no error"
    assert ncore.get_error_string(ncore.Result.InProgress) == "NCCL operation in progress"


def test_unique_id_nccl_core_forms():
    uid = ncore.get_unique_id(ncore.Backend.HOST)
    assert isinstance(uid.as_bytes, bytes) and uid.as_bytes == bytes(uid)
    assert ctypes.string_at(uid.ptr, 128) == uid.as_bytes
    assert pickle.loads(pickle.dumps(uid)) == uid
    empty = ncore.UniqueId()
    assert empty.as_bytes == bytes(128) and ncore.get_unique_id(empty=True) == empty
    # as_ndarray is a view of the id: receiving into it (MPI.Comm.Bcast) fills it.
    view = empty.as_ndarray
    assert view.shape == (1,) and view.dtype.names == ("internal",)
    view.view(np.uint8)[:] = np.frombuffer(uid.as_bytes, dtype=np.uint8)
    assert empty == uid
    with pytest.raises(TypeError):
        ncore.get_unique_id(ncore.Backend.HOST, True)  # the backend is a keyword
    assert ncore.get_unique_id(True) == ncore.UniqueId()  # nccl.core's positional `empty`


def test_device_without_cuda_core_has_device_id_and_set_current(comm1):
    device = comm1.device
    if importlib.util.find_spec("cuda") is None:
        assert isinstance(device, ncore.cuda.Device)
    assert device.device_id == -1 == comm1.cuda_dev == int(ncore.cuda.Device(-1))
    device.set_current()  # the host backend's device: nothing to switch
    assert ncore.cuda.get_device_id(ncore.cuda.Device(3)) == 3
    with ncore.cuda.CudaDeviceContext(-1):
        pass
    with pytest.raises(ncore.NcclInvalid, match="not a device"):
        ncore.cuda.get_device_id("gpu0")


def test_mem_alloc_takes_a_device_and_looks_like_a_cuda_core_buffer():
    memory = ncore.mem_alloc(24, backend=ncore.Backend.HOST)
    assert (memory.size, memory.device_id) == (24, -1)
    assert memory.handle == memory.ptr != 0
    assert memory.is_host_accessible and not memory.is_device_accessible
    ncore.mem_free(memory)
    assert memory.handle == 0
    with pytest.raises(ncore.NcclInvalid, match="device: 1 on the host backend"):
        ncore.mem_alloc(8, 1, backend=ncore.Backend.HOST)
    with pytest.raises(ncore.NcclInvalid, match="keyword"):
        ncore.mem_alloc(8, ncore.Backend.HOST)  # ncore's old positional backend


def test_cuda_array_interface_device_is_read_or_refused():
    cai = {"shape": (2,), "typestr": "<f4", "data": (0x10000, False), "version": 3}

    class OnDevice1:
        device_id = 1
        __cuda_array_interface__ = cai

    class Silent:
        __cuda_array_interface__ = cai

    assert ncore.resolve_buffer(OnDevice1()).device_id == 1
    with pytest.raises(ncore.NcclInvalid, match="does not say its device"):
        ncore.resolve_buffer(Silent())


def test_versions_and_library_path():
    version = ncore.get_version()
    info = ncore.get_library_info()
    # NCCL's version, as nccl.core's: the libnccl ncore loaded, else none
    # (the host backend has no NCCL to report); ncore's own is ncore_version.
    code = info.nccl_version
    expected = f"{code // 10000}.{code % 10000 // 100}.{code % 100}" if code else None
    # get_version() is nccl4py 0.4.1's VersionInfo, which still answers
    # 0.3.1's Version attributes; 0.3.1's Version class stays.
    if expected is None:
        assert version.nccl_version is None and ncore.get_lib_version() is None
        assert "none loaded" in repr(ncore.Version(None))
    else:
        assert str(version.nccl_version) == str(ncore.get_lib_version()) == expected
    assert str(version.nccl4py_version) == ncore.__version__
    assert str(ncore.ncore_version()) == ncore.__version__ == info.version
    assert "NCCL Library version" in repr(ncore.Version(code or None))
    assert str(ncore.Version(23007).nccl_version) == "2.30.7"
    assert str(ncore.Version(2708).nccl_version) == "2.7.8"  # NCCL's old encoding
    path = ncore.get_lib_path()
    assert path is not None and path.exists()
    assert path.name.startswith("libnccl.so" if code else "libncore.so")


def test_group_simulation_is_not_supported_and_leaves_the_group_open():
    ncore.group_start()
    with pytest.raises(ncore.NcclNotSupported, match="ncclGroupSimulateEnd"):
        ncore.group_end(simulate=True)
    assert ncore.group_end() is None  # the group was still open
    with pytest.raises(ncore.NcclInvalidUsage):
        ncore.group_end()
    assert ncore.GroupSimInfo(estimated_time=0.5).estimated_time == 0.5


def test_config_newer_fields_reach_the_c_struct():
    c = ncore.NCCLConfig(graph_usage_mode=1, num_rma_ctx=2, max_p2p_peers=3,
                         graph_stream_ordering=0, cta_policy=ncore.CTAPolicy.ZERO).to_c()
    assert (c.graph_usage_mode, c.num_rma_ctx, c.max_p2p_peers, c.graph_stream_ordering,
            c.cta_policy) == (1, 2, 3, 0, 2)
    unset = ncore.NCCLConfig().to_c()
    assert unset.graph_usage_mode == unset.max_p2p_peers == raw.NCORE_CONFIG_UNDEF_INT


def test_config_and_requirements_have_every_nccl_core_field():
    config = ["blocking", "cga_cluster_size", "min_ctas", "max_ctas", "net_name",
              "split_share", "traffic_class", "comm_name", "collnet_enable", "cta_policy",
              "shrink_share", "nvls_ctas", "n_channels_per_net_peer", "nvlink_centric_sched",
              "graph_usage_mode", "num_rma_ctx", "max_p2p_peers", "graph_stream_ordering"]
    requirements = [
        "lsa_multimem", "barrier_count", "lsa_barrier_count", "rail_gin_barrier_count",
        "lsa_ll_a2a_block_count", "lsa_ll_a2a_slot_count", "gin_force_enable",
        "gin_context_count", "gin_signal_count", "gin_counter_count", "gin_connection_type",
        "gin_exclusive_contexts", "gin_queue_depth", "world_gin_barrier_count",
        "gin_strong_signals_required", "gin_va_signals_required"]
    for cls, names in ((ncore.NCCLConfig, config), (ncore.NCCLDevCommRequirements, requirements)):
        have = {f.name: f.default for f in dataclasses.fields(cls)}
        assert [n for n in names if n not in have or have[n] is not None] == [], cls


def test_dev_comm_requirements_default_to_nccls_defaults():
    # Every field unset, except 0.4.1's teams / resources: empty tuples.
    defaults_of = {f.name: getattr(ncore.NCCLDevCommRequirements(), f.name)
                   for f in dataclasses.fields(ncore.NCCLDevCommRequirements)}
    assert defaults_of.pop("teams") == () and defaults_of.pop("resources") == ()
    assert all(value is None for value in defaults_of.values()), defaults_of
    defaults = raw.ncore_dev_comm_requirements_t()
    raw.ncore_dev_comm_requirements_init(defaults)
    c = ncore.NCCLDevCommRequirements().to_c()
    for name in ("gin_context_count", "barrier_count", "gin_queue_depth",
                 "gin_va_signals_required", "gin_connection_type"):
        assert getattr(c, name) == getattr(defaults, name)
    assert c.gin_context_count == raw.NCORE_CONFIG_UNDEF_INT  # NCCL picks (4)
    c = ncore.NCCLDevCommRequirements(
        gin_exclusive_contexts=True, gin_queue_depth=64, world_gin_barrier_count=2,
        gin_strong_signals_required=False, gin_va_signals_required=False,
        gin_traffic_class=3, barrier_count=1).to_c()
    assert (c.gin_exclusive_contexts, c.gin_queue_depth, c.world_gin_barrier_count,
            c.gin_strong_signals_required, c.gin_va_signals_required,
            c.gin_traffic_class, c.barrier_count) == (1, 64, 2, 0, 0, 3, 1)


def test_dev_comm_with_newer_requirements_on_the_host(comm1):
    requirements = ncore.NCCLDevCommRequirements(gin_queue_depth=16, barrier_count=1)
    with comm1.create_dev_comm(requirements) as dev:
        assert dev.info.nranks == 1


def test_nccl_core_modules_and_names():
    core_all = [
        "NcclDataType", "NcclRedOp", "NcclGinType", "NcclGinConnectionType",
        "NcclCommMemStat", "NcclBufferSpec", "NcclScalarSpec", "NcclDeviceSpec",
        "NcclStreamSpec", "NcclInvalid", "INT8", "CHAR", "UINT8", "INT32", "INT",
        "UINT32", "INT64", "UINT64", "FLOAT16", "HALF", "FLOAT32", "FLOAT", "FLOAT64",
        "DOUBLE", "BFLOAT16", "FLOAT8E4M3", "FLOAT8E5M2", "SUM", "PROD", "MAX", "MIN",
        "AVG", "CTAPolicy", "CommShrinkFlag", "CommSuspendFlag", "WindowFlag",
        "NCCLConfig", "WaitSignalDesc", "NCCLDevCommRequirements", "Communicator",
        "RegisteredBufferHandle", "RegisteredWindowHandle", "CustomRedOp",
        "DevCommResource", "group", "group_start", "group_end", "GroupSimInfo",
        "Version", "get_version", "get_lib_version", "get_lib_path", "UniqueId",
        "get_unique_id", "get_error_string", "mem_alloc", "mem_free"]
    missing = [name for name in core_all if not hasattr(ncore, name)]
    assert missing == []
    modules = {"utils": ["Version", "get_version", "get_lib_version", "get_lib_path",
                         "UniqueId", "get_unique_id", "get_error_string"],
               "typing": ["NcclDataType", "NcclCommMemStat", "NcclBufferSpec", "FLOAT32"],
               "constants": ["CTAPolicy", "CommShrinkFlag", "CommSuspendFlag", "WindowFlag"],
               "buffer": ["mem_alloc", "mem_free"],
               "cuda": ["CudaDeviceContext", "get_cuda_device", "get_device_id",
                        "get_cuda_stream", "get_stream_ptr"]}
    for module, names in modules.items():
        loaded = importlib.import_module(f"ncore.{module}")
        assert [n for n in names if not hasattr(loaded, n)] == [], module
    assert ncore.constants.WindowFlag is ncore.WindowFlag


def test_bool_arrays_travel_as_uint8(comm1):
    flags = np.array([True, False, True])
    assert ncore.resolve_buffer(flags).dtype is ncore.UINT8
    out = np.zeros(3, dtype=bool)
    comm1.allreduce(flags, out, ncore.MAX)
    assert out.tolist() == [True, False, True]


def test_custom_redop_converts_to_int_and_wait_signal_desc_is_hashable(comm1):
    op = comm1.create_pre_mul_sum(2.0)
    assert int(op) == op.op
    x = np.ones(2, dtype=np.float64)
    comm1.allreduce(x, x, int(op))
    assert x.tolist() == [2.0, 2.0]
    op.close()
    with pytest.raises(ncore.NcclClosed):
        int(op)
    a, b = ncore.WaitSignalDesc(1), ncore.WaitSignalDesc(peer=1, op_count=1)
    assert a == b and len({a, b}) == 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.peer = 2
