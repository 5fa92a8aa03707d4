"""Keyword names of ncore 1.1 kept beside nccl.core's.

Keyword names are part of an API: where ncore 1.1 shipped a parameter under
another name than nccl.core 0.3.1 (``Communicator(handle=)`` for
``ptr=``, ``UniqueId.from_bytes(data=)`` for ``b=``, ``mem_free(allocation=)``
for ``buf=``, a resource's ``handle=``), the nccl.core name is the
parameter and ncore's old one a keyword-only alias, resolved here once."""

from __future__ import annotations

from typing import Any

#: "The caller did not pass this argument" (None can be a real value).
MISSING: Any = type("Missing", (), {"__repr__": lambda self: "<missing>",
                                    "__bool__": lambda self: False})()


def one_of(function: str, name: str, value: Any, alias: str, alias_value: Any,
           default: Any = MISSING) -> Any:
    """The argument given as `name` (nccl.core's keyword) or as `alias`
    (ncore 1.1's), else `default`; TypeError when both are given, or when
    neither is and there is no default, as Python says for a missing one."""
    if value is not MISSING and alias_value is not MISSING:
        raise TypeError(f"{function}() got {name!r} and its alias {alias!r}; give one")
    if value is not MISSING:
        return value
    if alias_value is not MISSING:
        return alias_value
    if default is MISSING:
        raise TypeError(f"{function}() missing required argument: {name!r}")
    return default
