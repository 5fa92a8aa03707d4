"""Public signatures say what they take: a buffer, stream, device or
communicator argument is typed with ncore.typing's aliases (or the class),
never Any, so a type checker of a user's program (py.typed ships) can catch
a wrong argument; an op argument is an NcclRedOpSpec."""

from __future__ import annotations

import inspect
import sys
import typing

import ncore
from ncore import communicator, cuda, memory, symmetric

# Parameters whose type is known: what each must accept.
KNOWN = {"sendbuf", "recvbuf", "buffer", "local_buffer", "dst", "src", "obj",
         "tensor", "array", "stream", "device", "comm", "scalar"}


def public_functions():
    for module in (ncore, memory, symmetric, cuda):
        for name in getattr(module, "__all__", dir(module)):
            value = getattr(module, name, None)
            if inspect.isfunction(value) and not name.startswith("_"):
                yield f"{module.__name__}.{name}", value
    for name, value in vars(communicator.Communicator).items():
        if inspect.isfunction(value) and not name.startswith("_"):
            yield f"Communicator.{name}", value
    from ncore import _p2p
    for name, value in vars(_p2p.P2PMixin).items():
        if inspect.isfunction(value) and not name.startswith("_"):
            yield f"Communicator.{name}", value


def test_known_arguments_are_not_typed_any():
    untyped = []
    checked = 0
    for where, function in public_functions():
        hints = typing.get_type_hints(function, vars(sys.modules[function.__module__]))
        for parameter in inspect.signature(function).parameters:
            if parameter in KNOWN and parameter in hints:
                checked += 1
                hint = hints[parameter]
                if hint is typing.Any or typing.Any in typing.get_args(hint):
                    untyped.append(f"{where}({parameter})")
    assert checked >= 20, f"only {checked} arguments checked: the list of functions broke"
    assert not untyped, "typed Any where the type is known: " + ", ".join(untyped)


def test_buffer_and_stream_aliases_name_their_kinds():
    buffer_kinds = set(typing.get_args(ncore.typing.NcclBufferSpec))
    assert typing.Any not in buffer_kinds
    assert {ncore.Buffer, ncore.ResolvedBuffer} <= buffer_kinds
    stream_kinds = set(typing.get_args(ncore.typing.NcclStreamSpec))
    assert typing.Any not in stream_kinds and int in stream_kinds
    assert typing.Any not in typing.get_args(ncore.typing.NcclDeviceSpec)
