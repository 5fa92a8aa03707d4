"""The per-collective configuration (nccl4py 0.5/0.6's NCCLCollConfig and
VendorOption, the ``config=`` keyword of the eight collectives): nccl4py
0.6.0's names, fields, defaults and keyword, taken from NVIDIA's nccl4py
0.6.0 API page (nccl.core.NCCLCollConfig, VendorOption; Communicator's
collectives take ``*, stream=None, config=None``); on the host backend a
config changes no result, its checks are nccl4py's and the C library's,
and a CUDA event is refused."""

from __future__ import annotations

import dataclasses
import inspect

import numpy as np
import pytest

import ncore

from conftest import run_ranks

# nccl4py 0.6.0: NCCLCollConfig(*, min_ctas=None, max_ctas=None,
# nvls_ctas=None, cga_cluster_size=None, alg_selection=None,
# force_alg_selection=None, cta_policy=None, user_profiler_tag=None,
# launch_completion_event=None, vendor_options=()).
COLL_CONFIG_FIELDS = [
    ("min_ctas", None), ("max_ctas", None), ("nvls_ctas", None),
    ("cga_cluster_size", None), ("alg_selection", None), ("force_alg_selection", None),
    ("cta_policy", None), ("user_profiler_tag", None), ("launch_completion_event", None),
    ("vendor_options", ()),
]
COLLECTIVES = ["allreduce", "broadcast", "reduce", "allgather", "reduce_scatter",
               "alltoall", "gather", "scatter"]


def test_nccl4py_0_6_names_fields_and_defaults():
    fields = [(f.name, f.default) for f in dataclasses.fields(ncore.NCCLCollConfig)]
    assert fields == COLL_CONFIG_FIELDS
    params = inspect.signature(ncore.NCCLCollConfig).parameters.values()
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params)
    option = inspect.signature(ncore.VendorOption).parameters
    assert [(p.name, p.default is inspect.Parameter.empty) for p in option.values()] == [
        ("vendor_id", True), ("option_id", True), ("int_value", False),
        ("str_value", False), ("raw_value", False)]
    assert ncore.NcclEventSpec is not None
    for name in COLLECTIVES:
        parameters = inspect.signature(getattr(ncore.Communicator, name)).parameters
        tail = list(parameters.values())[-2:]
        assert [(p.name, p.kind, p.default) for p in tail] == [
            ("stream", inspect.Parameter.KEYWORD_ONLY, None),
            ("config", inspect.Parameter.KEYWORD_ONLY, None)], name


def test_vendor_options_follow_nccl4py_rules():
    with pytest.raises(ncore.NcclInvalid, match="exactly one of int_value"):
        ncore.VendorOption(1, 2)
    with pytest.raises(ncore.NcclInvalid, match="exactly one of int_value"):
        ncore.VendorOption(1, 2, int_value=1, str_value="x")
    with pytest.raises(ncore.NcclInvalid, match="must be a sequence of VendorOption"):
        ncore.NCCLCollConfig(vendor_options=ncore.VendorOption(1, 2, int_value=1))
    with pytest.raises(ncore.NcclInvalid, match="keys must be unique"):
        ncore.NCCLCollConfig(vendor_options=(ncore.VendorOption(1, 2, int_value=1),
                                             ncore.VendorOption(1, 2, raw_value=5)))


def _with_configs(comm):
    r, n = comm.rank, comm.nranks
    configs = [None, ncore.NCCLCollConfig(),
               ncore.NCCLCollConfig(min_ctas=1, max_ctas=4, nvls_ctas=2, cga_cluster_size=0,
                                    alg_selection="tree,ring", force_alg_selection=False,
                                    cta_policy=ncore.CTAPolicy.EFFICIENCY,
                                    user_profiler_tag=7,
                                    vendor_options=(ncore.VendorOption(5, 1, str_value="x"),
                                                    ncore.VendorOption(5, 2, raw_value=9)))]
    configs += [ncore.NCCLCollConfig(alg_selection=name)
                for name in ("auto", "nccl", "oneshot", "twoshot")]
    out = []
    for config in configs:
        got = {}
        recv = np.zeros(3, dtype=np.int32)
        comm.allreduce(np.full(3, r + 1, dtype=np.int32), recv, ncore.SUM, config=config)
        got["allreduce"] = recv.tolist()
        b = np.full(2, r, dtype=np.float64)
        comm.broadcast(b, b, 0, config=config)
        got["broadcast"] = b.tolist()
        red = np.zeros(1, dtype=np.int64)
        comm.reduce(np.array([r], dtype=np.int64), red, ncore.MAX, config=config)  # root=None
        got["reduce"] = red.tolist()
        gathered = np.zeros(n, dtype=np.int32)
        comm.allgather(np.array([r], dtype=np.int32), gathered, config=config)
        got["allgather"] = gathered.tolist()
        rs = np.zeros(1, dtype=np.int32)
        comm.reduce_scatter(np.arange(n, dtype=np.int32), rs, ncore.SUM, config=config)
        got["reduce_scatter"] = rs.tolist()
        a2a = np.zeros(n, dtype=np.int32)
        comm.alltoall(np.full(n, r, dtype=np.int32), a2a, config=config)
        got["alltoall"] = a2a.tolist()
        g = np.zeros(n, dtype=np.int32)
        comm.gather(np.array([r], dtype=np.int32), g, root=None, config=config)
        got["gather"] = g.tolist()
        s = np.zeros(1, dtype=np.int32)
        comm.scatter(np.arange(n, dtype=np.int32), s, 0, config=config)
        got["scatter"] = s.tolist()
        out.append(got)
    return out


@pytest.mark.parametrize("n", [2, 3])
def test_a_config_changes_no_result(n):
    for rank, results in enumerate(run_ranks(n, _with_configs)):
        want = {"allreduce": [n * (n + 1) // 2] * 3, "broadcast": [0.0, 0.0],
                "reduce": [n - 1], "allgather": list(range(n)),
                "reduce_scatter": [n * rank], "alltoall": list(range(n)),
                "gather": list(range(n)), "scatter": [rank]}
        for got in results:
            assert got == want


def _refusals(comm):
    buf = np.zeros(4, dtype=np.float32)
    messages = []
    for config, error in [
            (ncore.NCCLCollConfig(launch_completion_event=0x1234), ncore.NcclNotSupported),
            (ncore.NCCLCollConfig(cga_cluster_size=2 ** 31), ncore.NcclInvalid),
            ("ring", ncore.NcclInvalid)]:
        try:
            comm.allreduce(buf, buf, ncore.SUM, config=config)
        except error as e:
            messages.append(str(e))
    with pytest.raises(ValueError, match="null handle"):
        comm.allreduce(buf, buf, ncore.SUM,
                       config=ncore.NCCLCollConfig(launch_completion_event=0))
    with pytest.raises(TypeError):
        comm.allreduce(buf, buf, ncore.SUM,
                       config=ncore.NCCLCollConfig(launch_completion_event=True))
    comm.allreduce(buf, buf, ncore.SUM, config=ncore.NCCLCollConfig())  # still in step
    return messages


def test_refusals_name_the_field():
    for messages in run_ranks(2, _refusals):
        assert len(messages) == 3
        assert "config.launch_completion_event: a CUDA event" in messages[0]
        assert "host backend" in messages[0]
        assert "config.cga_cluster_size" in messages[1]
        assert "expected an NCCLCollConfig or None, got str" in messages[2]
