"""The exception hierarchy of nccl.core, one class per ncore status.

Every failing C call raises, from the SWIG layer, the class registered here
for its status, with args (status, message); the message is ncore's
"<function>: <argument>: <what is wrong>". NcclError derives from the raw
layer's NcoreError so both can be caught. A closed resource raises NcclClosed,
which is also a RuntimeError, as the nccl.core resource pages specify."""

from __future__ import annotations

import enum

from ._lib import raw

__all__ = [
    "NcclError",
    "NcclUnhandledCudaError",
    "NcclSystemError",
    "NcclInternalError",
    "NcclInvalid",
    "NcclInvalidUsage",
    "NcclRemoteError",
    "NcclInProgress",
    "NcclNotSupported",
    "NcclUnavailable",
    "NcclClosed",
    "NcclTimeout",
    "error_for_status",
    "Result",
]


class NcclError(raw.NcoreError):
    """Base of every ncore error.

    Attributes:
        status: the ncore status code (an ``int``, see ``ncore_status_t``).
        message: what was wrong (also ``str(error)`` and ``msg``).
    """

    #: Status used when the error is raised from Python with a message only.
    default_status: int = raw.NCORE_ERR_INTERNAL

    def __init__(self, *args: object, msg: object = None) -> None:
        # From C: (status, message). From Python: (message,), or nccl.core's
        # NcclInvalid(msg=message).
        if msg is not None:
            if args:
                raise TypeError(f"{type(self).__name__}() got a message and msg=; give one")
            args = (msg,)
        if len(args) == 2 and isinstance(args[0], int):
            status, message = int(args[0]), str(args[1])
        else:
            status, message = self.default_status, " ".join(str(a) for a in args)
        super().__init__(status, message)
        self.status = status
        self.message = message
        self.msg = message

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return f"<{type(self).__name__}: {self.message}>"

    def __reduce__(self):
        return (type(self), (self.status, self.message))

    @property
    def status_name(self) -> str:
        """The status's name, e.g. ``"NCORE_ERR_INVALID_ARGUMENT"``."""
        return raw.ncore_status_string(self.status)


class NcclUnhandledCudaError(NcclError):
    """A CUDA call failed underneath (NCCL backend)."""

    default_status = raw.NCORE_ERR_UNHANDLED_CUDA


class NcclSystemError(NcclError):
    """A system call failed (shared memory, mapping, out of memory)."""

    default_status = raw.NCORE_ERR_SYSTEM


class NcclInternalError(NcclError):
    """An internal invariant broke: a bug in ncore or NCCL."""

    default_status = raw.NCORE_ERR_INTERNAL


class NcclInvalid(NcclError):
    """An argument is invalid (nccl.core's NcclInvalid): bad buffer, wrong
    device, unsupported dtype, rank out of range, uninitialized communicator."""

    default_status = raw.NCORE_ERR_INVALID_ARGUMENT


class NcclInvalidUsage(NcclError):
    """The call is valid in itself but not now or not in this combination."""

    default_status = raw.NCORE_ERR_INVALID_USAGE


class NcclRemoteError(NcclError):
    """A peer failed: it died, aborted, or reported an error."""

    default_status = raw.NCORE_ERR_REMOTE


class NcclInProgress(NcclError):
    """A non-blocking operation is still in progress."""

    default_status = raw.NCORE_IN_PROGRESS


class NcclNotSupported(NcclError):
    """The backend cannot do this (a feature NCCL or the hardware lacks)."""

    default_status = raw.NCORE_ERR_NOT_SUPPORTED


class NcclUnavailable(NcclError):
    """The requested backend's library or device is missing."""

    default_status = raw.NCORE_ERR_UNAVAILABLE


class NcclClosed(NcclError, RuntimeError):
    """A closed resource, or one whose communicator was destroyed or aborted,
    was used. A RuntimeError, as nccl.core's resource pages specify."""

    default_status = raw.NCORE_ERR_CLOSED


class NcclTimeout(NcclError):
    """A peer did not answer within the communicator's timeout."""

    default_status = raw.NCORE_ERR_TIMEOUT


_BY_STATUS = {
    cls.default_status: cls
    for cls in (
        NcclUnhandledCudaError,
        NcclSystemError,
        NcclInternalError,
        NcclInvalid,
        NcclInvalidUsage,
        NcclRemoteError,
        NcclInProgress,
        NcclNotSupported,
        NcclUnavailable,
        NcclClosed,
        NcclTimeout,
    )
}


def error_for_status(status: int) -> type[NcclError]:
    """The exception class raised for an ncore status (NcclError if unknown)."""
    return _BY_STATUS.get(int(status), NcclError)


# From now on the SWIG layer raises these classes.
raw.error_classes.update(_BY_STATUS)


class Result(enum.IntEnum):
    """NCCL's result type (ncclResult_t; nccl.bindings.Result), what
    Communicator.get_async_error returns. ncore's statuses 0..7 are NCCL's
    values; NCORE_ERR_TIMEOUT is NCCL's Timeout. ncore's NOT_SUPPORTED,
    UNAVAILABLE and CLOSED have no NCCL result: they never come back as a
    communicator's asynchronous state, and read as InternalError if given."""

    Success = raw.NCORE_OK
    UnhandledCudaError = raw.NCORE_ERR_UNHANDLED_CUDA
    SystemError = raw.NCORE_ERR_SYSTEM
    InternalError = raw.NCORE_ERR_INTERNAL
    InvalidArgument = raw.NCORE_ERR_INVALID_ARGUMENT
    InvalidUsage = raw.NCORE_ERR_INVALID_USAGE
    RemoteError = raw.NCORE_ERR_REMOTE
    InProgress = raw.NCORE_IN_PROGRESS
    Timeout = 8
    NumResults = 9

    @classmethod
    def from_status(cls, status: int) -> "Result":
        """The NCCL result of an ncore status."""
        status = int(status)
        if status == raw.NCORE_ERR_TIMEOUT:
            return cls.Timeout
        if 0 <= status <= raw.NCORE_IN_PROGRESS:
            return cls(status)
        return cls.InternalError

    @property
    def text(self) -> str:
        """ncclGetErrorString's text for this result."""
        return _RESULT_TEXT[self]


# ncclGetErrorString (NCCL 2.30, src/init.cc): no ncore call returns NCCL's
# wording, and nccl.core's get_error_string promises it.
_RESULT_TEXT = {
    Result.Success: "no error",
    Result.UnhandledCudaError: "unhandled cuda error (run with NCCL_DEBUG=INFO for details)",
    Result.SystemError: "unhandled system error (run with NCCL_DEBUG=INFO for details)",
    Result.InternalError: "internal error - please report this issue to the NCCL developers",
    Result.InvalidArgument: "invalid argument (run with NCCL_DEBUG=WARN for details)",
    Result.InvalidUsage: "invalid usage (run with NCCL_DEBUG=WARN for details)",
    Result.RemoteError: "remote process exited or there was a network error",
    Result.InProgress: "NCCL operation in progress",
    Result.Timeout: "timeout",
    Result.NumResults: "unknown result code",
}
