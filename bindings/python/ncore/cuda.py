"""Devices and streams as nccl.core.cuda has them: ``cuda.core`` objects
when cuda.core is importable, otherwise :class:`Device`, an object with the
same ``device_id`` / ``set_current()`` made over ncore's device calls (the
host backend's "device" is -1, never a cuda.core Device)."""

from __future__ import annotations

from typing import Any, Optional

from ._errors import NcclUnavailable
from ._lib import raw
from ._types import Backend
from .buffer import resolve_stream
from .typing import HasDeviceId, NcclDeviceSpec, NcclStreamSpec

__all__ = ["Device", "CudaDeviceContext", "get_cuda_device", "get_device_id",
           "get_cuda_stream", "get_stream_ptr"]


def _cuda_core() -> Any:
    """cuda.core's module, or None where it is not installed."""
    try:
        import cuda.core as cuda_core
    except ImportError:
        return None
    return cuda_core if hasattr(cuda_core, "Device") else None


class Device:
    """A device without cuda.core: ``device_id`` (a CUDA ordinal, -1 for the
    host backend) and ``set_current()``. Equal when the ordinals are; int()
    gives the ordinal."""

    __slots__ = ("device_id",)

    def __init__(self, device_id: Optional[int] = None) -> None:
        """device_id None: the calling thread's current device on the
        backend AUTO resolves to (-1 where that is the host's)."""
        if device_id is None:
            device_id = raw.ncore_device_get(int(Backend.resolve(Backend.AUTO)))
        self.device_id = int(device_id)

    def set_current(self) -> None:
        """Makes this CUDA device the calling thread's current one
        (ncore_device_set on NCCL; nothing to do for the host's -1)."""
        if self.device_id >= 0:
            raw.ncore_device_set(int(Backend.NCCL), self.device_id)

    def __int__(self) -> int:
        return self.device_id

    __index__ = __int__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Device) and other.device_id == self.device_id

    def __hash__(self) -> int:
        return hash(self.device_id)

    def __repr__(self) -> str:
        return f"<Device {self.device_id}>" if self.device_id >= 0 else "<Device host>"


def get_cuda_device(device: Optional[NcclDeviceSpec] = None) -> HasDeviceId:
    """A device spec (None = current, an ordinal, a Device) as a
    cuda.core.Device where cuda.core is importable, else as :class:`Device`.
    The host backend's -1 is always a :class:`Device`."""
    cuda_core = _cuda_core()
    if cuda_core is not None and isinstance(device, cuda_core.Device):
        return device
    device_id = get_device_id(device)
    if cuda_core is None or device_id < 0:
        return device if isinstance(device, Device) else Device(device_id)
    return cuda_core.Device(device_id)


def get_device_id(device: Optional[NcclDeviceSpec] = None) -> int:
    """The ordinal of a device spec: an int as it is, an object's
    ``device_id``, None the current device's."""
    if device is None:
        return Device().device_id
    if isinstance(device, int) and not isinstance(device, bool):
        return device
    device_id = getattr(device, "device_id", None)
    if isinstance(device_id, int):
        return device_id
    from ._errors import NcclInvalid

    raise NcclInvalid(f"device: a {type(device).__name__} is not a device "
                      "(expected an int, a Device or a cuda.core.Device)")


class CudaDeviceContext:
    """``with CudaDeviceContext(device):`` makes `device` current inside the
    block and restores the previous device after it."""

    def __init__(self, device: Any) -> None:
        self._device = get_cuda_device(device)
        self._old = get_cuda_device(None)

    def __enter__(self) -> "CudaDeviceContext":
        if self._device.device_id != self._old.device_id:
            self._device.set_current()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._device.device_id != self._old.device_id:
            self._old.set_current()


def get_stream_ptr(stream: Optional[NcclStreamSpec] = None) -> int:
    """A stream spec as its address (None = the default stream, 0)."""
    return resolve_stream(stream)


def get_cuda_stream(stream: Optional[NcclStreamSpec] = None,
                    device: Optional[NcclDeviceSpec] = None) -> Any:
    """A stream spec as a cuda.core.Stream (None: the device's default
    stream).

    Raises:
        NcclUnavailable: cuda.core is not installed (the result is one of
            its objects); pass streams as they are elsewhere.
    """
    cuda_core = _cuda_core()
    if cuda_core is None:
        raise NcclUnavailable("get_cuda_stream: cuda.core is not installed; ncore "
                              "takes streams as they are (ints, __cuda_stream__)")
    if stream is None:
        return get_cuda_device(device).default_stream
    if isinstance(stream, cuda_core.Stream):
        return stream
    if isinstance(stream, int):
        return cuda_core.Stream.from_handle(stream)
    return get_cuda_device(device).create_stream(stream)
