"""Framework interop: ``numpy`` (host backend), ``torch`` and ``cupy``.
Submodules load on first attribute access, so torch and cupy are imported
only when used (a missing one raises ModuleNotFoundError then)."""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["numpy", "torch", "cupy"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
