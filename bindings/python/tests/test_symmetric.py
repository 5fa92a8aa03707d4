"""NVSHMEM-style symmetric NumPy arrays on the host backend: allocation,
put / get to a PE, peer views, explicit free, GC of unfreed objects."""

from __future__ import annotations

import gc
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import ncore
from ncore.interop import numpy as nnp

from conftest import run_ranks


def _barrier(comm):
    comm.allreduce(np.zeros(1), np.zeros(1), ncore.SUM)


def _symmetric(comm):
    r, n = comm.rank, comm.nranks
    ncore.init(comm)
    assert (ncore.my_pe(), ncore.n_pes()) == (r, n)
    a = nnp.array((2, 3), dtype="int32")
    assert a.shape == (2, 3) and a.dtype == np.int32 and int(a.sum()) == 0
    _barrier(comm)  # every PE checked its zeroed part before anyone puts into it
    right, left = (r + 1) % n, (r - 1) % n
    ncore.put(a, np.full((2, 3), r, dtype=np.int32), pe=right)
    _barrier(comm)
    after_put = a.ravel().tolist()
    local = np.zeros(3, dtype=np.int32)
    ncore.get(local, a[1], pe=left)  # row 1 of the left neighbour's copy
    peer_view = nnp.get_peer_array(a, right)
    peer_first = int(peer_view[0, 0])
    own_shares = nnp.get_peer_array(a).ravel().tolist() == a.ravel().tolist()
    buffer, nbytes, dtype_name = nnp.array_get_buffer(a)
    raw_bytes = nnp.bytearray(4, dtype="float64")
    assert raw_bytes.dtype == np.uint8 and raw_bytes.shape == (32,)
    with pytest.raises(ncore.NcclInvalid, match="pe"):
        ncore.put(a, local)
    with pytest.raises(ncore.NcclInvalid, match="count"):
        ncore.put(a, local, count=4, pe=right)
    with pytest.raises(ncore.NcclInvalid, match="symmetric"):
        ncore.put(np.zeros(2), local, pe=right)
    with pytest.raises(ncore.NcclInvalid) as caught:
        ncore.put(a, local, pe=n)
    bad_pe = caught.value.message
    _barrier(comm)
    nnp.free_array(a)
    with pytest.raises(ncore.NcclInvalid, match="symmetric"):
        nnp.free_array(a)
    ncore.free_array(raw_bytes)
    ncore.finalize()
    return (after_put, local.tolist(), peer_first, own_shares,
            buffer.size, nbytes, dtype_name, bad_pe)


@pytest.mark.parametrize("n", [2, 4])
def test_symmetric_put_get_and_peer_views(n):
    for r, out in enumerate(run_ranks(n, _symmetric)):
        after_put, got, peer_first, own_shares, size, nbytes, dtype_name, bad_pe = out
        left, right = (r - 1) % n, (r + 1) % n
        assert after_put == [left] * 6
        assert got == [(left - 1) % n] * 3
        assert peer_first == r  # what this rank put into its right neighbour
        assert own_shares
        assert (size, nbytes, dtype_name) == (24, 24, "int32")
        assert bad_pe.startswith("ncore_symmetric_put: pe")


def _symmetric_queries(comm):
    memory = ncore.symmetric.alloc(10, comm)
    size, valid = memory.size, memory.is_valid()
    # Ordinals (what framework views are built from), not comm.device's
    # cuda.core Device object.
    assert type(memory.device) is int and memory.device == comm.device.device_id
    assert ncore.symmetric.device_of(comm) == memory.device
    memory.free()
    with pytest.raises(ncore.NcclClosed):
        memory.size
    return size, valid, memory.is_valid()


def test_symmetric_size_and_validity_come_from_the_library():
    for size, valid, after in run_ranks(2, _symmetric_queries):
        assert (size, valid, after) == (10, True, False)


def _unfreed(comm):
    ncore.symmetric.init(comm)
    ncore.symmetric.set_gc_policy("warn")
    caught = []
    with warnings.catch_warnings(record=True) as records:
        warnings.simplefilter("always")
        a = nnp.array(4, comm=comm)
        del a
        gc.collect()
        caught = [str(w.message) for w in records
                  if issubclass(w.category, ncore.symmetric.SymmetricMemoryWarning)]
    left = len(ncore.symmetric._State.unfreed)
    ncore.symmetric.set_gc_policy("raise")
    ncore.symmetric.finalize()
    return caught, left, len(ncore.symmetric._State.unfreed)


def test_unfreed_symmetric_object_warns_and_is_released_at_finalize():
    for caught, left, after in run_ranks(2, _unfreed):
        assert len(caught) == 1 and "without being freed" in caught[0]
        assert (left, after) == (1, 0)


def _unfreed_raise_policy(comm):
    import sys

    ncore.symmetric.init(comm)
    assert ncore.symmetric._State.gc_policy == "raise"  # the default, as nvshmem.core
    reported = []
    previous, sys.unraisablehook = sys.unraisablehook, reported.append
    try:
        a = nnp.array(4)
        # An exception in a finalizer is reported (unraisablehook), not raised.
        del a
        gc.collect()
    finally:
        sys.unraisablehook = previous
        ncore.symmetric.finalize()
    return [f"{type(r.exc_value).__name__}: {r.exc_value}" for r in reported]


def test_unfreed_symmetric_object_raises_by_default():
    for reports in run_ranks(2, _unfreed_raise_policy):
        assert len(reports) == 1
        assert reports[0].startswith("NcclInvalidUsage") and "without being freed" in reports[0]


def test_symmetric_needs_a_communicator():
    ncore.symmetric.finalize()
    with pytest.raises(ncore.NcclInvalidUsage, match="ncore.symmetric.init"):
        nnp.array(4)
    with pytest.raises(ncore.NcclInvalid, match="policy"):
        ncore.symmetric.set_gc_policy("explode")


def test_unfreed_objects_are_released_at_exit(tmp_path):
    script = tmp_path / "leak.py"
    script.write_text(textwrap.dedent("""
        import ncore
        from ncore.interop import numpy as nnp
        comm = ncore.Communicator.from_env()
        ncore.init(comm)
        keep = nnp.array(16)
        keep[:] = 1
        print("allocated", flush=True)
    """))
    done = subprocess.run([sys.executable, "-m", "ncore.run", "-n", "2", "--backend", "host",
                           str(script)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("allocated") == 2
    assert "Traceback" not in done.stderr
