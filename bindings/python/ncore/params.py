"""NCCL's parameters, read-only (ncore/params.h; nccl.core 0.4.1's
``nccl.core.params`` and ``dump_params()``). From NCCL's parameter API where
the backend AUTO picks is NCCL 2.30 or newer, else from the environment (the
NCCL_* and NCORE_* variables that are set); every lookup asks anew."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from ._errors import NcclInvalid
from ._lib import raw

__all__ = ["params", "dump_params"]


def _text(call, *args) -> str:
    """A text under the size protocol: the length, then the text (asked
    again if it grew in between)."""
    length, _ = call(*args, 0)
    for _ in range(8):
        try:
            return call(*args, length + 1)[1]
        except NcclInvalid as error:
            if "capacity" not in str(error):
                raise
            length, _ = call(*args, 0)
    raise NcclInvalid("the parameters kept changing while being read")


class _NcclParams(Mapping[str, str]):
    """Read-only mapping of NCCL parameter names to their current values."""

    def __getitem__(self, key: str) -> str:
        if not isinstance(key, str):
            raise KeyError(key)
        try:
            return _text(raw.ncore_param_get, key)
        except NcclInvalid as error:
            if "no parameter" in str(error) or not key:
                raise KeyError(key) from None
            raise

    def __iter__(self) -> Iterator[str]:
        return iter(_text(raw.ncore_param_keys).splitlines())

    def __len__(self) -> int:
        return len(_text(raw.ncore_param_keys).splitlines())

    def __repr__(self) -> str:
        return f"<ncore.params: {len(self)} parameters>"


#: NCCL's parameters: ``params["NCCL_DEBUG"]``, ``list(params)``.
params: _NcclParams = _NcclParams()


def dump_params() -> None:
    """Prints every parameter to stdout as NAME=value lines (the C library
    writes them, so sys.stdout redirections do not see them)."""
    raw.ncore_param_dump()
