"""The per-call cache of buffer resolution, so a call on a torch tensor or
a CuPy array costs no DLPack export: what the C resolver yields is kept
under the values it depends on (address, element count, dtype, device),
read from the object on every call. A non-contiguous or grad-requiring
tensor always takes the full path (and its error). A communicator's
device check is kept per (communicator handle, device): handles are never
reused, and a communicator's device never changes. Only successes are
kept, so every failure still raises with the C message."""

from __future__ import annotations

import operator
import sys
from typing import Any, Callable, Dict, Optional, Set, Tuple


__all__ = ["cache_key", "remember", "CHECKED", "KEY_READERS", "RESOLVED"]

KeyReader = Callable[[Any], Optional[tuple]]


def _torch_key_reader(data_ptr: Callable[[Any], int], numel: Callable[[Any], int],
                      is_contiguous: Callable[[Any], bool],
                      get_device: Callable[[Any], int]) -> Callable[[Any], Optional[tuple]]:
    """A reader of what resolving a torch tensor depends on (None: the full
    path), through the given accessors: torch's own C methods, unbound, for
    torch.Tensor (each access then saves a lookup on the instance)."""
    def key(tensor: Any) -> Optional[tuple]:
        if tensor.requires_grad or not is_contiguous(tensor):
            return None  # DLPack refuses the first; the C resolver the second
        return (data_ptr(tensor), numel(tensor), tensor.dtype, get_device(tensor))
    return key


# Through the methods of the object itself (stand-ins in the tests).
_torch_key = _torch_key_reader(operator.methodcaller("data_ptr"), operator.methodcaller("numel"),
                               operator.methodcaller("is_contiguous"),
                               operator.methodcaller("get_device"))


def _torch_native_key(torch: Any) -> Callable[[Any], Optional[tuple]]:
    base = getattr(torch._C, "TensorBase", None) or torch._C._TensorBase
    return _torch_key_reader(base.data_ptr, base.numel, base.is_contiguous, base.get_device)


def _cupy_key(array: Any) -> Optional[tuple]:
    """What resolving a CuPy array depends on, or None for the full path."""
    if not array.flags.c_contiguous:
        return None
    data = array.data
    return (data.ptr, array.size, array.dtype, data.device_id)


def _cupy_key_attribute(array: Any) -> Optional[tuple]:
    """_cupy_key through CuPy's own contiguity attribute (no flags object)."""
    if not array._c_contiguous:
        return None
    data = array.data
    return (data.ptr, array.size, array.dtype, data.device_id)


# type -> key reader (None: the type is always resolved in full). Found once
# per type; tests add readers for stand-in types.
KEY_READERS: Dict[type, Optional[Callable[[Any], Optional[tuple]]]] = {}
# (type, key) -> what the C resolver returned for an object with that key.
RESOLVED: Dict[tuple, Any] = {}
# (communicator handle, device type, device id) that passed the device check.
CHECKED: Set[Tuple[int, int, bool]] = set()
CACHE_LIMIT = 4096  # entries before a cache starts again (addresses churn)
_UNSEEN = object()


def _key_reader(kind: type) -> Optional[Callable[[Any], Optional[tuple]]]:
    if kind in KEY_READERS:
        return KEY_READERS[kind]
    reader = None
    torch = sys.modules.get("torch")
    cupy = sys.modules.get("cupy")
    if torch is not None and kind in (getattr(torch, "Tensor", None),
                                      getattr(getattr(torch, "nn", None), "Parameter", None)):
        # Exactly these types: a subclass may override the accessors
        # (__torch_function__), so it takes the full path.
        try:
            reader = _torch_native_key(torch)
        except AttributeError:
            reader = _torch_key
    elif cupy is not None and kind is getattr(cupy, "ndarray", None):
        reader = _cupy_key_attribute if hasattr(kind, "_c_contiguous") else _cupy_key
    KEY_READERS[kind] = reader
    return reader


def cache_key(obj: Any) -> Optional[tuple]:
    """What resolving obj depends on, read from obj itself (no export), or
    None where obj takes the full path every call: a type without a key
    reader, a non-contiguous or grad-requiring tensor, or an object its
    reader cannot read (sparse, meta)."""
    reader = KEY_READERS.get(type(obj), _UNSEEN)
    if reader is _UNSEEN:
        reader = _key_reader(type(obj))
    if reader is None:
        return None
    try:
        return reader(obj)
    except Exception:  # noqa: BLE001 - an object the reader cannot read (sparse, meta)
        return None


def remember(table: Dict[Any, Any], key: Any, value: Any) -> None:
    """table[key] = value, the table started again once it holds
    CACHE_LIMIT entries (addresses churn: a bounded table needs no
    eviction order to stay correct, only to stay small)."""
    if len(table) >= CACHE_LIMIT:
        table.clear()
    table[key] = value
