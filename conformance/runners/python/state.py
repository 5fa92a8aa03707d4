"""Conformance runner (Python): the runner's state -- this rank, the world
communicator, the named objects steps make and use -- and the C integer
conversions that make Python pass exactly what the C runner passes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

import ncore

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


class Runner:
    """This rank's state while it runs a plan."""

    def __init__(self, world: "ncore.Communicator") -> None:
        self.world_comm = world
        self.world = world.ptr
        self.rank = world.rank
        self.nranks = world.nranks
        self.backend = int(world.backend)
        self.objects: dict[str, Obj] = {"world": Obj(COMM, handle=self.world)}

    def put(self, name: Optional[str], obj: Obj) -> Obj:
        """Adds or replaces the object called name."""
        if name is not None:
            self.objects[name] = obj
        return obj

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
