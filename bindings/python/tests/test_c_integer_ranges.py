"""Python integers that C's types cannot hold are refused, never truncated
or wrapped: every integer argument, array element and
struct field crosses into C through one conversion (ncore.i,
ncore_py_integer), which raises NcclInvalid naming the function and the
argument -- 2**32 + 1 ranks is not one rank, root 2**40 is not root 0, -1
bytes is not 2**64 - 1. Sizes follow C: the allocation calls refuse 0 and
negative sizes, as their docstrings say."""

from __future__ import annotations

import numpy as np
import pytest

import ncore
from ncore import raw

INT_RANGE = r"does not fit C's int \[-2147483648, 2147483647\]"


def test_a_rank_count_beyond_a_c_int_is_refused_not_truncated():
    uid = ncore.get_unique_id(ncore.Backend.HOST)
    config = ncore.NCCLConfig(backend=ncore.Backend.HOST, timeout=5)
    with pytest.raises(ncore.NcclInvalid,
                       match=f"ncore_comm_init_rank: nranks: 4294967297 {INT_RANGE}"):
        ncore.Communicator.init(2**32 + 1, 0, uid, config)
    with pytest.raises(ncore.NcclInvalid, match=f"ncore_comm_init_rank: rank: -4294967296 "):
        ncore.Communicator.init(1, -2**32, uid, config)


def test_a_root_or_peer_beyond_a_c_int_is_refused_and_nothing_moves(comm1):
    data = np.arange(4, dtype=np.float32)
    out = np.zeros(4, dtype=np.float32)
    with pytest.raises(ncore.NcclInvalid, match=f"ncore_broadcast: root: 1099511627776 {INT_RANGE}"):
        comm1.broadcast(data, out, root=2**40)
    with pytest.raises(ncore.NcclInvalid, match=f"ncore_reduce: root: 4294967296 {INT_RANGE}"):
        comm1.reduce(data, out, ncore.SUM, root=2**32)
    with pytest.raises(ncore.NcclInvalid, match=f"ncore_send: peer: 4294967296 {INT_RANGE}"):
        comm1.send(data, 2**32)
    with pytest.raises(ncore.NcclInvalid, match=f"ncore_signal: peer: -2147483649 {INT_RANGE}"):
        comm1.signal(-2**31 - 1)
    assert out.tolist() == [0, 0, 0, 0]


def test_list_elements_and_struct_fields_are_named_when_they_do_not_fit(comm1):
    with pytest.raises(ncore.NcclInvalid,
                       match=f"ncore_comm_shrink: exclude_ranks\\[1\\]: 8589934592 {INT_RANGE}"):
        comm1.shrink([0, 2**33])
    with pytest.raises(ncore.NcclInvalid,
                       match="ncore_wait_signal: descs\\[0\\].peer: 4294967296 does not fit"):
        comm1.wait_signal(ncore.WaitSignalDesc(peer=2**32))
    with pytest.raises(ncore.NcclInvalid,
                       match="ncore_comm_config_t.timeout_ms: 10000000000000 does not fit C's int32_t"):
        ncore.NCCLConfig(timeout=1e10).to_c()
    with pytest.raises(ncore.NcclInvalid, match="ncore_comm_init_all: devlist\\[0\\]: 4294967296 "):
        raw.ncore_comm_init_all(1, [2**32], None)


def test_unsigned_arguments_refuse_negative_values():
    with pytest.raises(ncore.NcclInvalid, match=r"ncore_comm_rank: comm: -1 is negative \(C takes a ncore_comm_t\)"):
        raw.ncore_comm_rank(-1)
    with pytest.raises(ncore.NcclInvalid, match=r"ncore_memset: bytes: -8 is negative \(C takes a size_t\)"):
        raw.ncore_memset(0, 0, -8, None, int(ncore.Backend.HOST))
    with pytest.raises(ncore.NcclInvalid, match="ncore_mem_free: ptr: -16 is negative"):
        raw.ncore_mem_free(-16, int(ncore.Backend.HOST))
    with pytest.raises(ncore.NcclInvalid, match=r"ncore_allreduce: count: 18446744073709551616 does not fit C's size_t"):
        raw.ncore_allreduce(0, 0, 0, 2**64, 0, 0, None)


def test_integers_are_ints_or_index_objects_and_other_types_are_named():
    with pytest.raises(TypeError, match="ncore_comm_rank: comm: expected an int, got float"):
        raw.ncore_comm_rank(1.5)
    # A NumPy integer is an integer (__index__), checked like an int.
    with pytest.raises(ncore.NcclInvalid, match="ncore_dtype_size: dtype: 4294967296 does not fit"):
        raw.ncore_dtype_size(np.int64(2**32))
    assert raw.ncore_dtype_size(np.int64(int(ncore.NcclDataType.FLOAT64))) == 8


@pytest.mark.parametrize("size", [0, -1, -2**62])
def test_mem_alloc_refuses_zero_and_negative_sizes_as_its_docstring_says(size):
    with pytest.raises(ncore.NcclInvalid, match="ncore_mem_alloc: size: "):
        ncore.mem_alloc(size, backend=ncore.Backend.HOST)
    with pytest.raises(ncore.NcclInvalid, match="ncore_mem_alloc: size: "):
        ncore.MemoryAllocation(size, ncore.Backend.HOST)


def test_empty_arrays_still_get_an_address_and_report_no_bytes():
    holder = ncore.MemoryAllocation(0, ncore.Backend.HOST, empty_ok=True)
    assert holder.ptr != 0 and holder.size == 0
    array = ncore.interop.numpy.empty((0, 3), dtype=np.float32)
    assert array.shape == (0, 3)
    with pytest.raises(ncore.NcclInvalid, match="ncore_mem_alloc: size: -4 is negative"):
        ncore.MemoryAllocation(-4, ncore.Backend.HOST, empty_ok=True)


def test_symmetric_alloc_refuses_zero_and_negative_sizes(comm1):
    ncore.symmetric.init(comm1)
    try:
        with pytest.raises(ncore.NcclInvalid, match="ncore_symmetric_alloc: size: "):
            ncore.symmetric.alloc(0)
        with pytest.raises(ncore.NcclInvalid, match="ncore_symmetric_alloc: size: -1 is negative"):
            ncore.symmetric.alloc(-1)
        empty = ncore.interop.numpy.array(0, "float32")
        assert empty.shape == (0,)
        ncore.interop.numpy.free_array(empty)
    finally:
        ncore.symmetric.finalize()
