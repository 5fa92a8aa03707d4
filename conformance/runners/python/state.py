"""Conformance runner (Python): the runner's state -- this rank, the world
communicator, the named objects steps make and use -- and the C integer
conversions that make Python pass exactly what the C runner passes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

import ncore
from ncore import raw

# Object kinds, as the C runner's object_kind_t.
COMM, BUFFER, REGISTERED_BUFFER, WINDOW, CUSTOM_REDOP, DEV_COMM, SYMMETRIC, MEMORY = range(8)


def u64(value: int) -> int:
    """(size_t) / (uint64_t) of a C long long: wraps negatives."""
    return value & 0xFFFFFFFFFFFFFFFF


def u32(value: int) -> int:
    """(uint32_t) of a C long long."""
    return value & 0xFFFFFFFF


def i32(value: int) -> int:
    """(int) of a C long long: keeps the low 32 bits, signed."""
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value & 0x80000000 else value


@dataclass
class Obj:
    """A named object: a handle, or memory (ptr, bytes, dtype)."""

    kind: int
    handle: int = 0
    ptr: int = 0
    bytes: int = 0
    dtype: int = 0
    plain: bool = False
    # What keeps the memory alive (a NumPy array or a MemoryAllocation).
    owner: Any = None
    # Memory a mem_free step released.
    freed: bool = False


class Runner:
    """This rank's state while it runs one case's plan."""

    def __init__(self, world: "ncore.Communicator", timeout_ms: int = 10000,
                 device: "int | None" = None) -> None:
        self.timeout_ms, self.device = timeout_ms, device
        self.world_comm = world
        self.world = world.ptr
        self.rank = world.rank
        self.nranks = world.nranks
        self.backend = int(world.backend)
        self.objects: dict[str, Obj] = {}
        # The stream of the calls that take one: 0 (the default stream), or
        # capture_stream between capture_begin and capture_end (capture.py).
        self.stream = 0
        self.capture_stream = 0
        # Everything the case made, hidden names included: released by close().
        self.made: list[Obj] = []
        self.put("world", Obj(COMM, handle=self.world))

    def put(self, name: Optional[str], obj: Obj) -> Obj:
        """Adds the object called name (hiding an earlier one of that name,
        which close() still releases)."""
        self.made.append(obj)
        if name is not None:
            self.objects[name] = obj
        return obj

    def close(self) -> None:
        """Ends the case, as the C runner's objects_clear: destroys every
        communicator it made (their resources go with them), newest first,
        then frees its memory. Errors are ignored: the steps already
        reported what the case checks."""
        for obj in reversed(self.made):
            if obj.kind == COMM and obj.handle:
                try:
                    raw.ncore_comm_destroy(obj.handle)
                except ncore.NcclError:
                    pass
        for obj in self.made:
            if obj.kind not in (BUFFER, MEMORY) or obj.freed or obj.plain or not obj.ptr:
                continue
            try:
                if isinstance(obj.owner, ncore.MemoryAllocation):
                    obj.owner.close()
                else:
                    raw.ncore_mem_free(obj.ptr, self.backend)
            except ncore.NcclError:
                pass
        self.objects.clear()
        self.made.clear()

    def get(self, name: Optional[str]) -> Optional[Obj]:
        """The object called name, or None ("null" and unknown names)."""
        return None if name is None else self.objects.get(name)

    def handle(self, name: Optional[str]) -> int:
        """The handle an argument names: 0 for "null" or an unknown name."""
        obj = self.get(name)
        return obj.handle if obj is not None else 0

    def comm(self, step: Any) -> int:
        """The step's `comm` argument, default the world communicator."""
        name = step.arg("comm")
        return self.handle(name) if name is not None else self.world
