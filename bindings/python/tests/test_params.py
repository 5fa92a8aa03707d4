"""nccl.core 0.4.1's params / dump_params through ncore: a live read-only
mapping; on the host backend the NCCL_* and NCORE_* variables that are set."""

from __future__ import annotations

import collections.abc

import pytest

import ncore


@pytest.fixture
def host_env(monkeypatch):
    monkeypatch.setenv("NCORE_BACKEND", "host")
    monkeypatch.setenv("NCCL_DEBUG", "WARN")
    monkeypatch.setenv("NCCL_ALGO", "ring")
    monkeypatch.delenv("NCCL_PROTO", raising=False)


def test_params_is_a_live_read_only_mapping_of_the_environment(host_env, monkeypatch):
    params = ncore.params
    assert isinstance(params, collections.abc.Mapping)
    assert not isinstance(params, collections.abc.MutableMapping)
    assert params["NCCL_DEBUG"] == "WARN" and params["NCORE_BACKEND"] == "host"
    names = list(params)
    assert names == sorted(names) and {"NCCL_ALGO", "NCCL_DEBUG", "NCORE_BACKEND"} <= set(names)
    assert all(name.startswith(("NCCL_", "NCORE_")) for name in names)
    assert len(params) == len(names)
    assert "NCCL_PROTO" not in params
    monkeypatch.setenv("NCCL_PROTO", "LL")  # lookups are live
    assert params["NCCL_PROTO"] == "LL" and "NCCL_PROTO" in params
    assert dict(params)["NCCL_ALGO"] == "ring"
    with pytest.raises(TypeError):
        params["NCCL_DEBUG"] = "INFO"  # type: ignore[index]


def test_unknown_parameters_are_key_errors(host_env):
    with pytest.raises(KeyError, match="NCCL_NO_SUCH"):
        ncore.params["NCCL_NO_SUCH"]
    with pytest.raises(KeyError):
        ncore.params["HOME"]
    assert ncore.params.get("NCCL_NO_SUCH", "default") == "default"


def test_a_value_longer_than_its_first_length_is_read_whole(host_env, monkeypatch):
    monkeypatch.setenv("NCCL_LONG", "x" * 5000)
    assert ncore.params["NCCL_LONG"] == "x" * 5000


def test_dump_params_prints_name_value_lines(host_env, capfd):
    ncore.dump_params()
    out = capfd.readouterr().out.splitlines()
    assert "NCCL_DEBUG=WARN" in out and "NCORE_BACKEND=host" in out
    assert [line.split("=", 1)[0] for line in out] == list(ncore.params)
