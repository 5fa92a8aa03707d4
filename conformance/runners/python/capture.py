"""Conformance runner (Python): CUDA graphs (conformance/README.md,
"capture_begin / capture_end"), as the C runner's capture.c: capture_begin
starts capturing a stream of the runner's (made once per case) and makes it
the stream of every later call that takes one; capture_end ends the
capture, waits for the default stream's earlier work, launches the graph
`replays` times (default 1) on that stream, waits for it, and goes back to
the default stream. The driver's graph calls come from libcuda.so.1
through ctypes; where they fail, the runner stops (exit 2, the reason on
stderr): a capture step has no ncore status to report."""

from __future__ import annotations

import ctypes
import sys
from typing import Any

from ncore import raw

from plan import Step
from state import Runner

#: CU_STREAM_CAPTURE_MODE_GLOBAL, CUDA's default (and torch's).
CAPTURE_MODE_GLOBAL = 0

_driver: Any = None


def _stop(what: str, result: int = -1) -> None:
    sys.exit(f"conformance: {what} failed (CUresult {result})")


def _cu() -> Any:
    global _driver
    if _driver is None:
        try:
            _driver = ctypes.CDLL("libcuda.so.1")
        except OSError:
            _stop("dlopen(libcuda.so.1)")
    return _driver


def _call(name: str, *args: Any) -> None:
    try:
        function = getattr(_cu(), name)
    except AttributeError:
        _stop(name)
    result = function(*args)
    if result != 0:
        _stop(name, result)


def op_capture_begin(r: Runner, step: Step) -> None:
    if r.stream:
        _stop("capture_begin inside a capture")
    _cu()
    if not r.capture_stream:
        r.capture_stream = raw.ncore_stream_create(r.backend)
    _call("cuStreamBeginCapture_v2", ctypes.c_void_p(r.capture_stream),
          ctypes.c_int(CAPTURE_MODE_GLOBAL))
    r.stream = r.capture_stream


def op_capture_end(r: Runner, step: Step) -> None:
    if not r.stream:
        _stop("capture_end without capture_begin")
    r.stream = 0
    graph, execution = ctypes.c_void_p(), ctypes.c_void_p()
    stream = ctypes.c_void_p(r.capture_stream)
    _call("cuStreamEndCapture", stream, ctypes.byref(graph))
    _call("cuGraphInstantiateWithFlags", ctypes.byref(execution), graph,
          ctypes.c_ulonglong(0))
    _cu().cuGraphDestroy(graph)
    try:
        raw.ncore_stream_synchronize(None, r.backend)
        for _ in range(step.int("replays", 1)):
            _call("cuGraphLaunch", execution, stream)
        raw.ncore_stream_synchronize(r.capture_stream, r.backend)
    finally:
        _cu().cuGraphExecDestroy(execution)


def release(r: Runner) -> None:
    """At the end of a case: a capture still open is ended and dropped, the
    capture stream destroyed."""
    if r.stream:
        graph = ctypes.c_void_p()
        if _cu().cuStreamEndCapture(ctypes.c_void_p(r.capture_stream),
                                    ctypes.byref(graph)) == 0 and graph.value:
            _cu().cuGraphDestroy(graph)
        r.stream = 0
    if r.capture_stream:
        try:
            raw.ncore_stream_destroy(r.capture_stream, r.backend)
        except Exception:  # noqa: BLE001 - the steps reported what the case checks
            pass
        r.capture_stream = 0
