"""nccl.core 0.3.1's public signatures, through ``import ncore as nccl``: every function, method and constructor takes nccl.core's
parameters in nccl.core's order under nccl.core's keyword names, with
nccl.core's optional parameters optional; every documented attribute,
property, enum member and field exists. ncore 1.1's own keyword names stay
as aliases (tested here too). What ncore does not provide is named in
bindings/python/README.md's compatibility table, with the reason. The
spec's nvshmem.core interop page is checked the same way.

The table below is nccl.core's API as declared in NVIDIA/nccl's
bindings/nccl4py (nccl/core/*.py; names and parameters only): a parameter
with "=" has a default there, "*" starts the keyword-only ones, "*name"
takes any number of positional arguments."""

from __future__ import annotations

import importlib
import inspect
import os
import re

import numpy as np
import pytest

import ncore

NCCL_CORE_SIGNATURES = {
    # nccl.core.typing
    "typing.NcclInvalid": "msg",
    "typing.NcclDataType.from_numpy_dtype": "dtype",
    # nccl.core.communicator
    "communicator.Communicator": "ptr=",
    "communicator.Communicator.init": "nranks, rank, unique_id, config=",
    "communicator.Communicator.init_all": "devices=",
    "communicator.Communicator.initialize": "nranks, rank, unique_id, config=",
    "communicator.Communicator.split": "color=, key=, config=",
    "communicator.Communicator.shrink": "exclude_ranks=, config=, flag=",
    "communicator.Communicator.get_unique_id": "",
    "communicator.Communicator.grow": "nranks, unique_id=, rank=, config=",
    "communicator.Communicator.destroy": "",
    "communicator.Communicator.abort": "",
    "communicator.Communicator.finalize": "",
    "communicator.Communicator.revoke": "flags=",
    "communicator.Communicator.suspend": "flags=",
    "communicator.Communicator.resume": "",
    "communicator.Communicator.send": "sendbuf, peer, *, stream=",
    "communicator.Communicator.recv": "recvbuf, peer, *, stream=",
    "communicator.Communicator.wait_signal": "descs, *, stream=",
    "communicator.Communicator.signal": "peer, signal_index=, context=, flags=, *, stream=",
    "communicator.Communicator.put_signal": "local_buffer, peer, peer_window, "
    "peer_window_offset=, signal_index=, context=, flags=, *, stream=",
    "communicator.Communicator.allreduce": "sendbuf, recvbuf, op, *, stream=",
    "communicator.Communicator.broadcast": "sendbuf, recvbuf, root, *, stream=",
    "communicator.Communicator.reduce": "sendbuf, recvbuf, op, root=, *, stream=",
    "communicator.Communicator.allgather": "sendbuf, recvbuf, *, stream=",
    "communicator.Communicator.reduce_scatter": "sendbuf, recvbuf, op, *, stream=",
    "communicator.Communicator.alltoall": "sendbuf, recvbuf, *, stream=",
    "communicator.Communicator.gather": "sendbuf, recvbuf, root=, *, stream=",
    "communicator.Communicator.scatter": "sendbuf, recvbuf, root, *, stream=",
    "communicator.Communicator.register_buffer": "buffer",
    "communicator.Communicator.register_window": "buffer, flags=",
    "communicator.Communicator.create_pre_mul_sum": "scalar, datatype=",
    "communicator.Communicator.create_dev_comm": "requirements=",
    "communicator.Communicator.close_all_resources": "",
    "communicator.Communicator.get_last_error": "",
    "communicator.Communicator.get_async_error": "",
    "communicator.Communicator.get_mem_stat": "stat",
    "communicator.WaitSignalDesc": "peer, op_count=, signal_index=, context=",
    # nccl.core.resources
    "resources.CommResource": "comm_ptr",
    "resources.CommResource.close": "",
    "resources.RegisteredBufferHandle": "comm_ptr, buffer_ptr, size",
    "resources.RegisteredWindowHandle": "comm_ptr, buffer_ptr, size, flags=",
    "resources.RegisteredWindowHandle.get_lsa_multimem_device_pointer": "offset=",
    "resources.RegisteredWindowHandle.get_lsa_device_pointer": "lsa_rank, offset=",
    "resources.RegisteredWindowHandle.get_peer_device_pointer": "peer, offset=",
    "resources.CustomRedOp": "comm_ptr, scalar_ptr, datatype, residence",
    "resources.DevCommResource": "comm_ptr, requirements_ptr",
    # nccl.core.group
    "group.group_start": "",
    "group.group_end": "*, simulate=",
    "group.group": "",
    "group.GroupSimInfo": "estimated_time",
    # nccl.core.utils
    "utils.Version": "nccl_version",
    "utils.get_version": "",
    "utils.UniqueId": "_internal=",
    "utils.UniqueId.from_bytes": "b",
    "utils.get_unique_id": "empty=",
    "utils.get_error_string": "nccl_result",
    # nccl.core.buffer
    "buffer.mem_alloc": "size, device=",
    "buffer.mem_free": "buf",
    # nccl.core.cuda
    "cuda.CudaDeviceContext": "device",
    "cuda.get_cuda_device": "device=",
    "cuda.get_device_id": "device=",
    "cuda.get_cuda_stream": "stream=, device=",
    "cuda.get_stream_ptr": "stream=",
    # nccl.core.interop.cupy, nccl.core.interop.torch
    "interop.cupy.empty": "shape, dtype=, order=",
    "interop.cupy.resolve_array": "array",
    "interop.torch.empty": "*size, dtype=, device=, morder=",
    "interop.torch.resolve_tensor": "tensor",
}

# nvshmem.core's interop pages (the spec's symmetric-memory page): ncore's
# names for them, ncore.interop.* and the top-level helpers.
NVSHMEM_CORE_SIGNATURES = {
    "interop.torch.bytetensor": "shape, dtype=",
    "interop.torch.tensor": "shape, dtype=",
    "interop.torch.free_tensor": "tensor",
    "interop.torch.tensor_get_buffer": "tensor",
    "interop.torch.get_peer_tensor": "tensor, peer_pe=",
    "interop.cupy.bytearray": "shape, dtype=, device_id=",
    "interop.cupy.array": "shape, dtype=",
    "interop.cupy.free_array": "array",
    "interop.cupy.array_get_buffer": "array",
    "interop.cupy.get_peer_array": "array, peer_pe=",
    # nvshmem.put(dst, src, count=..., pe=...) and its neighbours, as the
    # page calls them (nvshmem.core's names at the package's top level).
    "symmetric.put": "dst, src, count=, pe=",
    "symmetric.get": "dst, src, count=, pe=",
    "symmetric.my_pe": "",
    "symmetric.n_pes": "",
}

NCCL_CORE_ATTRIBUTES = {
    "typing.NcclCommMemStat": "GPU_MEM_SUSPEND GPU_MEM_SUSPENDED GPU_MEM_PERSIST "
    "GPU_MEM_TOTAL GpuMemSuspend GpuMemSuspended GpuMemPersist GpuMemTotal",
    "typing.NcclRedOp": "SUM PROD MAX MIN AVG",
    "typing.NcclGinType": "NONE PROXY GDAKI GPI",
    "typing.NcclGinConnectionType": "NONE FULL RAIL",
    "typing.NcclDataType": "INT8 CHAR UINT8 INT32 INT UINT32 INT64 UINT64 FLOAT16 HALF "
    "FLOAT32 FLOAT FLOAT64 DOUBLE BFLOAT16 FLOAT8E4M3 FLOAT8E5M2 itemsize numpy_dtype",
    "constants.CTAPolicy": "DEFAULT EFFICIENCY ZERO Default Efficiency Zero",
    "constants.CommShrinkFlag": "DEFAULT ABORT Default Abort",
    "constants.CommSuspendFlag": "MEM Mem",
    "constants.WindowFlag": "DEFAULT COLL_SYMMETRIC STRICT_ORDERING Default CollSymmetric "
    "StrictOrdering",
    "communicator.NCCLConfig": "blocking cga_cluster_size min_ctas max_ctas net_name "
    "split_share traffic_class comm_name collnet_enable cta_policy shrink_share nvls_ctas "
    "n_channels_per_net_peer nvlink_centric_sched graph_usage_mode num_rma_ctx "
    "max_p2p_peers graph_stream_ordering",
    "communicator.NCCLDevCommRequirements": "lsa_multimem barrier_count lsa_barrier_count "
    "rail_gin_barrier_count lsa_ll_a2a_block_count lsa_ll_a2a_slot_count gin_force_enable "
    "gin_context_count gin_signal_count gin_counter_count gin_connection_type "
    "gin_exclusive_contexts gin_queue_depth world_gin_barrier_count "
    "gin_strong_signals_required gin_va_signals_required",
    "communicator.Communicator": "ptr is_valid nranks device rank cuda_dev nvml_dev "
    "device_api_support multimem_support gin_type n_lsa_teams host_rma_support railed_gin_type",
    "resources.CommResource": "is_valid",
    "resources.RegisteredBufferHandle": "handle size",
    "resources.RegisteredWindowHandle": "is_valid handle size user_ptr",
    "resources.CustomRedOp": "op",
    "resources.DevCommResource": "dev_comm ptr",
    "utils.UniqueId": "ptr as_ndarray as_bytes",
}

# nccl.core names ncore does not provide; each is a row of the README's
# compatibility table, with the reason.
NOT_PROVIDED = ["buffer.NcclBuffer", "memory.NcclMemoryResource", "memory.get_memory_resource"]

# Where ncore's positional parameter has another name than nccl.core's and
# nccl.core's name is a keyword alias: (name, position) -> ncore's name.
# ncore's name of a positional parameter where nccl.core's releases differ:
# the resources' first parameter is 0.6.0's `comm` and DevCommResource's
# second 0.6.0's `reqs_lowpp` (0.3.1's `comm_ptr` and `requirements_ptr`
# stay keywords, so both releases' calls bind).
POSITIONAL_RENAMED = {("utils.UniqueId", 0): "data",
                      ("resources.DevCommResource", 1): "reqs_lowpp",
                      **{(f"resources.{kind}", 0): "comm"
                         for kind in ("CommResource", "RegisteredBufferHandle",
                                      "RegisteredWindowHandle", "CustomRedOp",
                                      "DevCommResource")}}


def resolve(name: str):
    """ncore's object for a nccl.core name "module.Qualified.name"."""
    parts = name.split(".")
    for split in (2, 1):
        try:
            obj = importlib.import_module("ncore." + ".".join(parts[:split]))
        except ImportError:
            continue
        for part in parts[split:]:
            obj = getattr(obj, part)
        return obj
    raise AssertionError(f"no module for {name}")


def parameters(spec: str) -> list:
    """(name, kind, optional) of a parameter list of the table."""
    out, kind = [], "positional"
    for item in filter(None, (p.strip() for p in spec.split(","))):
        if item == "*":
            kind = "keyword"
        elif item.startswith("*"):
            out.append((item[1:], "varargs", True))
            kind = "keyword"
        else:
            out.append((item.rstrip("="), kind, item.endswith("=")))
    return out


@pytest.mark.parametrize("name", sorted(NCCL_CORE_SIGNATURES))
def test_signature_takes_nccl_core_parameters(name):
    check_signature(name, NCCL_CORE_SIGNATURES[name])


@pytest.mark.parametrize("name", sorted(NVSHMEM_CORE_SIGNATURES))
def test_signature_takes_nvshmem_core_parameters(name):
    check_signature(name, NVSHMEM_CORE_SIGNATURES[name])
    if name.startswith("symmetric."):  # also where nvshmem.core has them
        assert getattr(ncore, name.split(".")[1]) is resolve(name)


def check_signature(name: str, spec: str) -> None:
    obj = resolve(name)
    signature = inspect.signature(obj)
    if inspect.isfunction(obj) and "." in obj.__qualname__ and "self" in signature.parameters:
        # A method looked up on its class: nccl.core's table has no self.
        signature = signature.replace(parameters=list(signature.parameters.values())[1:])
    ours = list(signature.parameters.values())
    positional = [p for p in ours if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    has_varargs = any(p.kind == p.VAR_POSITIONAL for p in ours)
    index = 0
    for pname, kind, optional in parameters(spec):
        if kind == "varargs":
            assert has_varargs, f"{name}{signature}: takes no *{pname}"
            continue
        if kind == "positional" and index >= len(positional) and has_varargs:
            pass  # taken by ncore's *args (e.g. NcclInvalid(message))
        elif kind == "positional":
            assert index < len(positional), f"{name}{signature}: {pname!r} not positional"
            expected = POSITIONAL_RENAMED.get((name, index), pname)
            assert positional[index].name == expected, \
                f"{name}{signature}: position {index} is {positional[index].name!r}, not {pname!r}"
            index += 1
        # nccl.core's keyword name binds (as the parameter or its alias).
        signature.bind_partial(**{pname: object()})
        ours_param = signature.parameters.get(pname)
        if optional and ours_param is not None:
            assert ours_param.default is not inspect.Parameter.empty, \
                f"{name}{signature}: {pname!r} is optional in nccl.core"
    # Nothing ncore requires beyond what nccl.core's callers pass.
    named = {p for p, _, _ in parameters(spec)}
    for p in ours:
        if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            assert p.name in named or (name, positional.index(p)) in POSITIONAL_RENAMED, \
                f"{name}{signature}: requires {p.name!r}, which nccl.core does not have"


@pytest.mark.parametrize("name", sorted(NCCL_CORE_ATTRIBUTES))
def test_attributes_exist(name):
    cls = resolve(name)
    names = NCCL_CORE_ATTRIBUTES[name].split()
    fields = {f.name for f in getattr(cls, "__dataclass_fields__", {}).values()}
    missing = [a for a in names if a not in fields and inspect.getattr_static(cls, a, None) is None]
    assert not missing, f"{name} lacks {missing}"


def test_what_is_not_provided_is_in_the_compatibility_table():
    readme = open(os.path.join(os.path.dirname(__file__), "..", "README.md")).read()
    table = readme[readme.index("## Compatibility with nccl.core"):]
    for name in NOT_PROVIDED:
        short = name.split(".", 1)[1]
        assert re.search(rf"`[^`]*{re.escape(short)}[^`]*`[^|]*\| not supported", table), \
            f"{name}: no 'not supported' row in bindings/python/README.md"
        with pytest.raises((AttributeError, ImportError)):
            resolve(name)


# ---- nccl.core's keyword names and ncore 1.1's aliases, called ----

def test_communicator_ptr_and_handle_alias(comm1):
    assert not ncore.Communicator(ptr=0).is_valid
    assert not ncore.Communicator().is_valid
    borrowed = ncore.Communicator(ptr=comm1.ptr)
    assert borrowed.rank == 0 and borrowed.ptr == comm1.ptr
    assert ncore.Communicator(handle=comm1.ptr).nranks == 1  # ncore 1.1
    assert ncore.Communicator(comm1.ptr).ptr == comm1.handle == comm1.ptr
    with pytest.raises(TypeError, match="give one"):
        ncore.Communicator(ptr=comm1.ptr, handle=comm1.ptr)


def test_unique_id_from_bytes_b_and_data_alias():
    uid = ncore.get_unique_id(backend=ncore.Backend.HOST)
    assert ncore.UniqueId.from_bytes(b=uid.as_bytes) == uid
    assert ncore.UniqueId.from_bytes(uid.as_bytes) == uid
    assert ncore.UniqueId.from_bytes(data=bytearray(uid.as_bytes)) == uid  # ncore 1.1
    assert ncore.UniqueId(_internal=uid.as_bytes) == ncore.UniqueId(uid.as_bytes) == uid
    with pytest.raises(TypeError, match="give one"):
        ncore.UniqueId.from_bytes(b=uid.as_bytes, data=uid.as_bytes)
    with pytest.raises(TypeError, match="missing"):
        ncore.UniqueId.from_bytes()


def test_unique_id_as_ndarray_is_a_view_for_mpi_bcast():
    uid = ncore.get_unique_id(backend=ncore.Backend.HOST)
    empty = ncore.utils.UniqueId()
    assert isinstance(inspect.getattr_static(ncore.UniqueId, "as_ndarray"), property)
    view = empty.as_ndarray
    assert isinstance(view, np.recarray) and view.shape == (1,)
    view.internal[0] = np.frombuffer(uid.as_bytes, dtype=np.int8)
    assert empty == uid


def test_get_unique_id_empty_positional_and_backend_forms():
    empty = ncore.get_unique_id(True)
    assert empty == ncore.UniqueId() == ncore.get_unique_id(empty=True)
    assert ncore.get_unique_id(False) != empty  # a real id, AUTO backend
    host = ncore.get_unique_id(backend=ncore.Backend.HOST)
    assert host != empty
    # ncore 1.1's positional backend: a first argument that is not a bool.
    comm = ncore.Communicator.init(1, 0, ncore.get_unique_id(ncore.Backend.HOST),
                                   ncore.NCCLConfig(backend=ncore.Backend.HOST))
    assert comm.backend == ncore.Backend.HOST
    comm.destroy()
    with pytest.raises(TypeError, match="give one"):
        ncore.get_unique_id(ncore.Backend.HOST, backend=ncore.Backend.HOST)
    with pytest.raises(TypeError):
        ncore.get_unique_id(ncore.Backend.HOST, True)


def test_mem_free_buf_and_allocation_alias():
    first = ncore.mem_alloc(16, backend=ncore.Backend.HOST)
    ncore.mem_free(buf=first)
    assert first.handle == 0
    second = ncore.mem_alloc(16, backend=ncore.Backend.HOST)
    ncore.buffer.mem_free(allocation=second)  # ncore 1.1
    assert second.handle == 0
    third = ncore.mem_alloc(16, backend=ncore.Backend.HOST)
    ncore.mem_free(third)
    assert third.handle == 0
    with pytest.raises(TypeError, match="give one"):
        ncore.mem_free(buf=first, allocation=first)


def test_nccl_invalid_takes_msg():
    error = ncore.NcclInvalid(msg="bad dtype")
    assert error.msg == str(error) == "bad dtype" and isinstance(error, Exception)
    assert ncore.NcclInvalid("bad").msg == "bad"


def test_resource_constructors_take_nccl_core_arguments(comm1):
    data = np.arange(4, dtype=np.float32)
    buffer = ncore.RegisteredBufferHandle(comm1.ptr, data.ctypes.data, data.nbytes)
    assert buffer.is_valid and buffer.size == data.nbytes
    buffer.close()
    assert not buffer.is_valid
    memory = ncore.interop.numpy.empty(8, dtype=np.float32)
    window = ncore.RegisteredWindowHandle(comm_ptr=comm1.ptr, buffer_ptr=memory.ctypes.data,
                                          size=memory.nbytes, flags=ncore.WindowFlag.DEFAULT)
    assert window.user_ptr == memory.ctypes.data and window.size == memory.nbytes
    assert window.get_peer_device_pointer(0) == memory.ctypes.data
    window.close()
    scalar = np.array([0.5], dtype=np.float32)
    op = ncore.CustomRedOp(comm1.ptr, scalar.ctypes.data, ncore.FLOAT32,
                           ncore.ScalarResidence.HOST_IMMEDIATE)
    out = np.empty_like(data)
    comm1.allreduce(data, out, op)
    np.testing.assert_allclose(out, data * 0.5)
    op.close()
    dev = ncore.DevCommResource(comm1.ptr, ncore.NCCLDevCommRequirements())
    assert dev.ptr and dev.dev_comm.ptr == dev.ptr
    dev.close()
    assert ncore.DevCommResource(comm1.ptr, None).is_valid
    with pytest.raises(ncore.NcclInvalid, match="NCCLDevCommRequirements or None"):
        ncore.DevCommResource(comm1.ptr, 0x1000)
    with pytest.raises(ncore.NcclInvalid, match="null communicator"):
        ncore.RegisteredBufferHandle(0, data.ctypes.data, data.nbytes)
    with pytest.raises(TypeError, match="missing required argument: 'size'"):
        ncore.RegisteredBufferHandle(comm1.ptr, data.ctypes.data)


def test_resource_constructors_take_the_communicator_as_0_6_0(comm1):
    data = np.arange(4, dtype=np.float32)
    buffer = ncore.RegisteredBufferHandle(comm1, data.ctypes.data, data.nbytes)
    assert buffer.is_valid and buffer.size == data.nbytes
    buffer.close()
    memory = ncore.interop.numpy.empty(8, dtype=np.float32)
    window = ncore.RegisteredWindowHandle(comm=comm1, buffer_ptr=memory.ctypes.data,
                                          size=memory.nbytes)
    assert window.get_peer_device_pointer(0) == memory.ctypes.data
    window.close()
    scalar = np.array([2.0], dtype=np.float32)
    with ncore.CustomRedOp(comm1, scalar.ctypes.data, ncore.FLOAT32,
                           ncore.ScalarResidence.HOST_IMMEDIATE) as op:
        out = np.empty_like(data)
        comm1.allreduce(data, out, op)
        np.testing.assert_allclose(out, data * 2.0)
    with pytest.raises(TypeError, match="got comm and comm_ptr"):
        ncore.RegisteredBufferHandle(comm1, data.ctypes.data, data.nbytes, comm_ptr=comm1.ptr)
    with pytest.raises(TypeError, match="not a Communicator or its ptr"):
        ncore.RegisteredBufferHandle("comm", data.ctypes.data, data.nbytes)
    with pytest.raises(TypeError, match="missing required argument: 'buffer_ptr'"):
        ncore.RegisteredBufferHandle(comm1)
    with pytest.raises(TypeError, match="abstract"):
        ncore.resources.CommResource(comm1)
    with pytest.raises(ncore.NcclInvalid, match="null communicator"):
        ncore.RegisteredBufferHandle(ncore.Communicator(), data.ctypes.data, data.nbytes)
    dev = ncore.DevCommResource(comm1, ncore.NCCLDevCommRequirements())
    assert dev.ptr and dev.resource_handles == ()
    dev.close()
    dev = ncore.DevCommResource(comm1, requirements_ptr=None)
    assert dev.is_valid
    dev.close()
    with pytest.raises(ncore.NcclInvalid, match="resource_handle_lowpps: ncore keeps"):
        ncore.DevCommResource(comm1, None, resource_handle_lowpps=(object(),))
    with pytest.raises(TypeError, match="got reqs_lowpp and requirements_ptr"):
        ncore.DevCommResource(comm1, None, requirements_ptr=None)


def test_resources_wrap_handles_as_in_ncore_1_1(comm1):
    made = comm1.register_buffer(np.zeros(4, dtype=np.int32))
    for wrapper in (ncore.RegisteredBufferHandle(made.ncore_handle),
                    ncore.RegisteredBufferHandle(handle=made.ncore_handle),
                    ncore.RegisteredBufferHandle.from_handle(made.ncore_handle)):
        assert wrapper.ncore_handle == made.ncore_handle and wrapper.size == 16
    ncore.RegisteredBufferHandle.from_handle(made.ncore_handle).close()
    assert not made.is_valid
    with pytest.raises(TypeError, match="handle= and nccl.core's arguments"):
        ncore.RegisteredBufferHandle(comm1.ptr, 0, 16, handle=made.ncore_handle)
