"""The 128-byte bootstrap token (nccl.core UniqueId / get_unique_id)."""

from __future__ import annotations

import ctypes
from typing import Any, Optional, Union

from ._compat import MISSING, one_of
from ._errors import NcclInvalid
from ._lib import raw
from ._types import Backend

__all__ = ["UniqueId", "get_unique_id"]

UNIQUE_ID_BYTES = raw.NCORE_UNIQUE_ID_BYTES

_BytesLike = Union[bytes, bytearray, memoryview]


def _numpy_dtype() -> Any:
    """nccl.bindings.unique_id_dtype: one record, field ``internal`` of 128
    int8 (ncclUniqueId's layout)."""
    import numpy as np

    return np.dtype({"names": ["internal"], "formats": [(np.int8, UNIQUE_ID_BYTES)],
                     "offsets": [0], "itemsize": UNIQUE_ID_BYTES})


class UniqueId:
    """Opaque bootstrap token: rank 0 makes it, every rank gets the same bytes.

    ``UniqueId()`` is an empty (all-zero) id to be filled in, e.g. by
    ``MPI.Comm.Bcast(uid.as_ndarray, root=0)``: ``as_ndarray`` is a view of
    the id's own storage, so receiving into it changes the id. Otherwise:
    ``bytes(uid)`` / ``uid.as_bytes`` and ``UniqueId.from_bytes(b)``,
    ``uid.hex()`` / ``UniqueId.from_hex(s)`` (the NCORE_UNIQUE_ID form),
    ``uid.ptr`` (the address of the 128 bytes); picklable, comparable,
    hashable (by content: do not change an id used as a key)."""

    __slots__ = ("_data", "__weakref__")

    def __init__(self, data: Optional[_BytesLike] = None, *,
                 _internal: Optional[_BytesLike] = None) -> None:
        # nccl.core names this argument _internal (an nccl.bindings.UniqueId,
        # bytes-like); here any 128 bytes.
        data = one_of("UniqueId", "data", MISSING if data is None else data,
                      "_internal", MISSING if _internal is None else _internal, None)
        data = bytearray(UNIQUE_ID_BYTES if data is None else bytes(data))
        if len(data) != UNIQUE_ID_BYTES:
            raise NcclInvalid(
                f"unique_id: expected {UNIQUE_ID_BYTES} bytes, got {len(data)}"
            )
        # Mutable, and never resized: as_ndarray and ptr expose this storage.
        self._data = data

    @classmethod
    def from_bytes(cls, b: _BytesLike = MISSING, *, data: _BytesLike = MISSING) -> "UniqueId":
        """Makes a UniqueId from its 128 bytes (a copy). ``data=`` is ncore
        1.1's name for `b`."""
        return cls(one_of("UniqueId.from_bytes", "b", b, "data", data))

    @classmethod
    def from_hex(cls, text: str) -> "UniqueId":
        """Makes a UniqueId from 256 hex characters (as NCORE_UNIQUE_ID)."""
        try:
            return cls(bytes.fromhex(text.strip()))
        except ValueError as error:
            raise NcclInvalid(f"unique_id: not hexadecimal: {error}") from None

    @property
    def as_bytes(self) -> bytes:
        """The 128 bytes (a copy)."""
        return bytes(self._data)

    @property
    def as_ndarray(self) -> Any:
        """A one-record NumPy recarray (field ``internal``: 128 int8) over the
        id's own storage, for buffer transports such as ``MPI.Comm.Bcast``."""
        import numpy as np

        return np.ndarray((1,), dtype=_numpy_dtype(), buffer=self._data).view(np.recarray)

    @property
    def ptr(self) -> int:
        """Address of the 128 bytes (an ncore_unique_id_t / ncclUniqueId),
        valid while this object lives."""
        return ctypes.addressof((ctypes.c_char * UNIQUE_ID_BYTES).from_buffer(self._data))

    def hex(self) -> str:
        """256 lower-case hex characters."""
        return self._data.hex()

    def __bytes__(self) -> bytes:
        return bytes(self._data)

    def __len__(self) -> int:
        return UNIQUE_ID_BYTES

    def __eq__(self, other: object) -> bool:
        return isinstance(other, UniqueId) and other._data == self._data

    def __hash__(self) -> int:
        return hash(bytes(self._data))

    def __reduce__(self):
        return (UniqueId, (bytes(self._data),))

    def __repr__(self) -> str:
        return f"<UniqueId: {self._data[:8].hex()}...{self._data[-8:].hex()}>"


def get_unique_id(empty: bool | Backend | int = False, *,
                  backend: Backend | int = MISSING) -> UniqueId:
    """Makes a new unique id (ncclGetUniqueId) for a communicator on `backend`
    (AUTO, the default, resolves as for Communicator.init; the id records
    the backend). ``empty=True`` returns ``UniqueId()`` without asking the
    library, to be filled in later (``get_unique_id(True)``, as nccl.core).

    ncore 1.1 took the backend as the first positional argument; that
    spelling still works: a first argument that is not a bool
    (``get_unique_id(Backend.HOST)``) is the backend.

    Raises:
        TypeError: a backend given both ways.
        NcclInvalid: unknown backend.
        NcclUnavailable: NCCL requested but missing.
    """
    if not isinstance(empty, bool):
        # ncore 1.1's get_unique_id(backend): a Backend or an int there.
        backend = one_of("get_unique_id", "backend", backend,
                         "backend (first positional argument)", empty)
        empty = False
    if empty:
        return UniqueId()
    backend = Backend.AUTO if backend is MISSING else backend
    if isinstance(backend, bool):
        raise NcclInvalid(f"backend: got {backend!r}, a bool, not a Backend")
    return UniqueId(raw.ncore_get_unique_id(int(backend)))
