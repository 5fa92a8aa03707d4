"""The 128-byte bootstrap token (nccl.core UniqueId / get_unique_id)."""

from __future__ import annotations

from typing import Union

from ._errors import NcclInvalid
from ._lib import raw
from ._types import Backend

__all__ = ["UniqueId", "get_unique_id"]

UNIQUE_ID_BYTES = raw.NCORE_UNIQUE_ID_BYTES


class UniqueId:
    """Opaque bootstrap token: rank 0 makes it, every rank gets the same bytes.

    Bytes-like: ``bytes(uid)``, ``uid.as_bytes()``, ``UniqueId.from_bytes(b)``,
    ``uid.hex()`` / ``UniqueId.from_hex(s)`` (the NCORE_UNIQUE_ID form);
    picklable, comparable, hashable."""

    __slots__ = ("_data",)

    def __init__(self, data: Union[bytes, bytearray, memoryview]) -> None:
        data = bytes(data)
        if len(data) != UNIQUE_ID_BYTES:
            raise NcclInvalid(
                f"unique_id: expected {UNIQUE_ID_BYTES} bytes, got {len(data)}"
            )
        self._data = data

    @classmethod
    def from_bytes(cls, data: Union[bytes, bytearray, memoryview]) -> "UniqueId":
        """Makes a UniqueId from its 128 bytes."""
        return cls(data)

    @classmethod
    def from_hex(cls, text: str) -> "UniqueId":
        """Makes a UniqueId from 256 hex characters (as NCORE_UNIQUE_ID)."""
        try:
            return cls(bytes.fromhex(text.strip()))
        except ValueError as error:
            raise NcclInvalid(f"unique_id: not hexadecimal: {error}") from None

    def as_bytes(self) -> bytes:
        """The 128 bytes."""
        return self._data

    def hex(self) -> str:
        """256 lower-case hex characters."""
        return self._data.hex()

    def __bytes__(self) -> bytes:
        return self._data

    def __len__(self) -> int:
        return UNIQUE_ID_BYTES

    def __eq__(self, other: object) -> bool:
        return isinstance(other, UniqueId) and other._data == self._data

    def __hash__(self) -> int:
        return hash(self._data)

    def __reduce__(self):
        return (UniqueId, (self._data,))

    def __repr__(self) -> str:
        return f"UniqueId({self._data[:8].hex()}...)"


def get_unique_id(backend: Backend | int = Backend.AUTO) -> UniqueId:
    """Makes a new unique id (ncclGetUniqueId) for a communicator on `backend`
    (AUTO resolves as for Communicator.init; the id records the backend).

    Raises:
        NcclUnavailable: NCCL requested but missing.
    """
    return UniqueId(raw.ncore_get_unique_id(int(backend)))
