"""Errors, enums, unique ids, configs, buffers and streams: single process."""

from __future__ import annotations

import numpy as np
import pytest

import ncore
from ncore import _ncore as raw


def test_exception_hierarchy_matches_statuses():
    assert issubclass(ncore.NcclInvalid, ncore.NcclError)
    assert issubclass(ncore.NcclClosed, RuntimeError)
    assert issubclass(ncore.NcclError, raw.NcoreError)
    for status, cls in [(1, ncore.NcclUnhandledCudaError), (2, ncore.NcclSystemError),
                        (3, ncore.NcclInternalError), (4, ncore.NcclInvalid),
                        (5, ncore.NcclInvalidUsage), (6, ncore.NcclRemoteError),
                        (7, ncore.NcclInProgress), (8, ncore.NcclNotSupported),
                        (9, ncore.NcclUnavailable), (10, ncore.NcclClosed),
                        (11, ncore.NcclTimeout)]:
        assert ncore.error_for_status(status) is cls
        assert raw.error_classes[status] is cls
    error = ncore.NcclInvalid("x: bad")
    assert (error.status, error.message, error.msg, str(error)) == (4, "x: bad", "x: bad", "x: bad")


def test_raw_layer_raises_status_and_message_of_the_failing_call():
    with pytest.raises(ncore.NcclInvalid) as caught:
        raw.ncore_dtype_size(99)
    assert caught.value.status == raw.NCORE_ERR_INVALID_ARGUMENT
    assert caught.value.message.startswith("ncore_dtype_size: ")
    assert caught.value.status_name == "NCORE_ERR_INVALID_ARGUMENT"
    # The thread-local message is the one the exception carried.
    assert raw.ncore_last_error_message() == caught.value.message
    assert raw.ncore_last_error_status() == raw.NCORE_ERR_INVALID_ARGUMENT
    assert raw.ncore_dtype_size(raw.NCORE_FLOAT64) == 8
    assert raw.ncore_last_error_status() == raw.NCORE_OK
    assert raw.ncore_last_error_message() == ""


def test_version_and_status_strings():
    assert ncore.__version__.count(".") == 2
    assert raw.ncore_abi_version() // 10000 == raw.NCORE_ABI_VERSION // 10000
    # NCCL's texts (ncclGetErrorString), by NCCL's result codes.
    assert ncore.get_error_string(4) == "invalid argument (run with NCCL_DEBUG=WARN for details)"
    assert ncore.get_error_string(ncore.Result.Timeout) == "timeout"
    assert ncore.get_error_string(999) == "unknown result code"


def test_abi_rule_refuses_another_major_and_an_older_minor():
    from ncore._lib import abi_mismatch
    assert abi_mismatch(10000, 10000) is None
    assert abi_mismatch(10100, 10000) is None  # a newer minor serves
    assert abi_mismatch(raw.ncore_abi_version(), raw.NCORE_ABI_VERSION) is None
    older = abi_mismatch(10000, 10100)
    assert older == ("ncore: libncore.so has ABI version 10000, this binding was built "
                     "against 10100: the major versions must match and the library's "
                     "minor must be at least the binding's")
    assert abi_mismatch(20000, 10000) is not None


def test_sized_init_passes_the_extensions_own_size():
    for struct, init, size in [
            (raw.ncore_comm_config_t, raw.ncore_comm_config_init, raw.NCORE_SIZEOF_COMM_CONFIG),
            (raw.ncore_wait_signal_desc_t, raw.ncore_wait_signal_desc_init,
             raw.NCORE_SIZEOF_WAIT_SIGNAL_DESC),
            (raw.ncore_dev_comm_requirements_t, raw.ncore_dev_comm_requirements_init,
             raw.NCORE_SIZEOF_DEV_COMM_REQUIREMENTS)]:
        value = struct()
        init(value)
        assert value.struct_size == size
    with pytest.raises(ncore.NcclInvalid) as caught:
        raw.ncore_comm_config_init(None)
    assert caught.value.message == "ncore_comm_config_init: config: must not be NULL"
    with pytest.raises(TypeError):
        raw.ncore_comm_config_init(raw.ncore_wait_signal_desc_t())


def test_enum_values_equal_ncore_and_nccl():
    assert [int(d) for d in (ncore.INT8, ncore.UINT8, ncore.INT32, ncore.UINT32, ncore.INT64,
                             ncore.UINT64, ncore.FLOAT16, ncore.FLOAT32, ncore.FLOAT64,
                             ncore.BFLOAT16, ncore.FLOAT8E4M3, ncore.FLOAT8E5M2)] == list(range(12))
    assert ncore.CHAR is ncore.INT8 and ncore.DOUBLE is ncore.FLOAT64
    assert [int(o) for o in (ncore.SUM, ncore.PROD, ncore.MAX, ncore.MIN, ncore.AVG)] == [0, 1, 2, 3, 4]
    assert [int(t) for t in ncore.NcclGinType] == [0, 2, 3, 4, 5]  # ... GPI, EFA_GDA
    assert [int(t) for t in ncore.NcclGinConnectionType] == [0, 1, 2, 3]  # ... CUSTOM_STRIDE
    assert ncore.FLOAT32.itemsize == 4 and ncore.BFLOAT16.itemsize == 2
    assert ncore.FLOAT32.type_name == "float32"


def test_dtype_from_numpy_goes_through_the_c_table():
    assert ncore.NcclDataType.from_numpy_dtype(np.float32) is ncore.FLOAT32
    assert ncore.NcclDataType.from_numpy_dtype(np.dtype("<u8")) is ncore.UINT64
    assert ncore.FLOAT16.numpy_dtype == np.float16
    with pytest.raises(ncore.NcclInvalid) as caught:
        ncore.NcclDataType.from_numpy_dtype(np.complex64)
    assert caught.value.message.startswith("ncore_dtype_from_typestr: ")


def test_dtype_from_dlpack_goes_through_the_c_table():
    assert ncore.NcclDataType.from_dlpack(2, 32) is ncore.FLOAT32  # kDLFloat
    assert ncore.NcclDataType.from_dlpack(4, 16) is ncore.BFLOAT16  # kDLBfloat
    with pytest.raises(ncore.NcclInvalid) as caught:
        ncore.NcclDataType.from_dlpack(2, 32, lanes=4)
    assert caught.value.message.startswith("ncore_dtype_from_dlpack: ")


def test_unique_id_is_128_bytes_and_round_trips():
    uid = ncore.get_unique_id(ncore.Backend.HOST)
    assert len(bytes(uid)) == 128 == len(uid)
    assert ncore.UniqueId.from_bytes(uid.as_bytes) == uid
    assert ncore.UniqueId.from_hex(uid.hex()) == uid and len(uid.hex()) == 256
    assert ncore.get_unique_id(ncore.Backend.HOST) != uid
    with pytest.raises(ncore.NcclInvalid, match="128 bytes"):
        ncore.UniqueId(b"short")
    with pytest.raises(ncore.NcclInvalid, match="hexadecimal"):
        ncore.UniqueId.from_hex("zz" * 128)


def test_init_rejects_bad_arguments_with_c_messages():
    uid = ncore.get_unique_id(ncore.Backend.HOST)
    config = ncore.NCCLConfig(backend=ncore.Backend.HOST, timeout=5)
    with pytest.raises(ncore.NcclInvalid, match="unique_id"):
        ncore.Communicator.init(1, 0, 12345, config)
    with pytest.raises(ncore.NcclInvalid) as caught:
        ncore.Communicator.init(0, 0, uid, config)
    assert caught.value.message.startswith("ncore_comm_init_rank: nranks")
    with pytest.raises(ncore.NcclInvalid) as caught:
        ncore.Communicator.init(2, 5, uid, config)
    assert caught.value.message.startswith("ncore_comm_init_rank: rank")
    with pytest.raises(ncore.NcclInvalid) as caught:
        ncore.Communicator.init(1, 0, uid, ncore.NCCLConfig(backend=ncore.Backend.HOST, device=3))
    assert "device" in caught.value.message


def test_null_communicator_says_not_initialized():
    comm = ncore.Communicator()
    assert not comm.is_valid and comm.ptr == 0
    for use in (lambda: comm.rank, lambda: comm.nranks,
                lambda: comm.send(np.zeros(1), 0), lambda: comm.revoke()):
        with pytest.raises(ncore.NcclInvalid, match="not initialized"):
            use()
    comm.finalize()  # nothing to flush, as in nccl.core
    comm.destroy()
    comm.abort()


def test_one_rank_communicator_properties(comm1):
    assert comm1.is_valid
    assert (comm1.rank, comm1.nranks, comm1.device.device_id) == (0, 1, -1)
    assert comm1.backend is ncore.Backend.HOST
    assert (comm1.lsa_rank, comm1.lsa_size) == (0, 1)
    assert comm1.gin_type is ncore.NcclGinType.NONE
    assert comm1.railed_gin_type is ncore.NcclGinType.NONE
    assert comm1.get_async_error() is ncore.Result.Success
    assert "rank=0" in repr(comm1)


def test_synchronize_waits_on_a_stream_and_refuses_a_bad_one(comm1):
    comm1.synchronize()
    with ncore.Stream(ncore.Backend.HOST) as stream:
        comm1.synchronize(stream)
    with pytest.raises(ncore.NcclInvalid) as caught:
        comm1.synchronize(0x1234)
    assert caught.value.message.startswith("ncore_comm_synchronize: stream")


def test_destroy_is_idempotent_and_context_manager_destroys():
    with ncore.Communicator.init(1, 0, ncore.get_unique_id(ncore.Backend.HOST),
                                 ncore.NCCLConfig(backend=ncore.Backend.HOST)) as comm:
        handle = comm.ptr
        assert raw.ncore_comm_is_valid(handle) == 1
    assert raw.ncore_comm_is_valid(handle) == 0
    assert not comm.is_valid
    comm.destroy()
    # The stale handle answers NCORE_ERR_CLOSED in C, a RuntimeError here.
    with pytest.raises(ncore.NcclClosed) as caught:
        raw.ncore_comm_rank(handle)
    assert isinstance(caught.value, RuntimeError)
    raw.ncore_comm_destroy(handle)  # idempotent on a stale handle
    with pytest.raises(ncore.NcclClosed):
        raw.ncore_comm_synchronize(handle, 0)


def test_config_fields_reach_the_c_struct():
    config = ncore.NCCLConfig(backend=ncore.Backend.HOST, timeout=1.5, blocking=True,
                              comm_name="world", min_ctas=2)
    c = config.to_c()
    assert c.struct_size == raw.NCORE_SIZEOF_COMM_CONFIG
    assert (c.backend, c.timeout_ms, c.blocking, c.min_ctas) == (1, 1500, 1, 2)
    assert c.comm_name == "world"
    assert c.max_ctas == raw.NCORE_CONFIG_UNDEF_INT and c.device == -1
    assert ncore.NCCLConfig(timeout=-1).to_c().timeout_ms == -1
    assert ncore.Config is ncore.NCCLConfig


def test_group_end_without_start_is_invalid_usage():
    with pytest.raises(ncore.NcclInvalidUsage) as caught:
        ncore.group_end()
    assert caught.value.message.startswith("ncore_group_end")
    with ncore.group():
        with ncore.group():  # groups nest
            pass
