"""Framework interop: NumPy on the host backend; torch and CuPy where a GPU
and the framework exist (skipped with the reason otherwise)."""

from __future__ import annotations

import gc

import numpy as np
import pytest

import ncore
from ncore.interop import numpy as nnp

from conftest import framework_missing as _framework_missing


def test_numpy_empty_is_ncore_memory_freed_by_gc():
    a = nnp.empty((3, 4), dtype=np.float32)
    assert a.shape == (3, 4) and a.dtype == np.float32 and a.flags.c_contiguous
    a[:] = 7
    ptr, count, dtype, device = nnp.resolve_array(a)
    assert (ptr, count, dtype, device) == (a.ctypes.data, 12, ncore.FLOAT32, -1)
    f = nnp.empty((3, 4), dtype=np.int64, order="F")
    assert f.flags.f_contiguous and not f.flags.c_contiguous
    holder = a.base
    while not isinstance(holder, ncore.MemoryAllocation):
        holder = holder.base
    assert holder.ptr == ptr
    del a, holder
    gc.collect()
    with pytest.raises(ncore.NcclInvalid, match="order"):
        nnp.empty(3, order="X")


def test_numpy_resolver_errors():
    with pytest.raises(ncore.NcclInvalid, match="numpy.ndarray"):
        nnp.resolve_array([1, 2])
    with pytest.raises(ncore.NcclInvalid):
        nnp.resolve_array(np.zeros(2, dtype=np.complex128))
    with pytest.raises(ncore.NcclInvalid, match="contiguous"):
        nnp.resolve_array(np.zeros((4, 4), dtype=np.float32)[:, 1])


def test_memory_allocation_close_is_idempotent():
    mem = ncore.mem_alloc(64, backend=ncore.Backend.HOST)
    assert mem.ptr != 0 and mem.nbytes == 64
    view = np.asarray(mem)
    assert view.shape == (64,) and view.dtype == np.uint8
    del view
    ncore.mem_free(mem)
    mem.close()
    assert mem.ptr == 0


def test_interop_modules_load_lazily():
    import sys

    assert "ncore.interop.torch" not in sys.modules or "torch" in sys.modules
    assert ncore.interop.numpy is nnp
    assert ncore.numpy is nnp


@pytest.mark.skipif(_framework_missing("torch") is not None,
                    reason=str(_framework_missing("torch")))
def test_torch_empty_and_resolve():
    import torch
    from ncore.interop import torch as nt

    t = nt.empty(2, 3, dtype=torch.float32)
    assert t.shape == (2, 3) and t.is_cuda
    ptr, count, dtype, device = nt.resolve_tensor(t)
    assert (ptr, count, dtype, device) == (t.data_ptr(), 6, ncore.FLOAT32,
                                           torch.cuda.current_device())
    assert nt.resolve_tensor(torch.zeros(2, dtype=torch.bfloat16))[2] is ncore.BFLOAT16
    with pytest.raises(ncore.NcclInvalid, match="torch.Tensor"):
        nt.resolve_tensor(np.zeros(2))
    with pytest.raises(ncore.NcclInvalid, match="no NCCL equivalent"):
        nt.resolve_tensor(torch.zeros(2, dtype=torch.complex64))
    with pytest.raises(ncore.NcclInvalid, match="morder"):
        nt.empty(2, morder="X")
    with pytest.raises(ncore.NcclInvalid, match="CUDA device"):
        nt.empty(2, device="cpu")


@pytest.mark.skipif(_framework_missing("cupy") is not None,
                    reason=str(_framework_missing("cupy")))
def test_cupy_empty_and_resolve():
    import cupy
    from ncore.interop import cupy as nc

    a = nc.empty((4,), dtype=cupy.float64)
    ptr, count, dtype, device = nc.resolve_array(a)
    assert (ptr, count, dtype) == (a.data.ptr, 4, ncore.FLOAT64)
    with pytest.raises(ncore.NcclInvalid, match="cupy.ndarray"):
        nc.resolve_array(np.zeros(2))
    with pytest.raises(ncore.NcclInvalid, match="order"):
        nc.empty(2, order="X")
