//! Errors: every ncore status as an [`ErrorKind`], with the library's message.
//!
//! The C library keeps the message of the last failed call in a thread-local
//! slot; [`check`] reads it on the same thread right after the failing call,
//! before any other ncore call can overwrite it.

use std::ffi::CStr;
use std::fmt;

use ncore_sys as sys;

/// The kind of an ncore failure: one variant per non-OK `ncore_status_t`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// `NCORE_ERR_UNHANDLED_CUDA`: a CUDA call failed underneath.
    UnhandledCuda,
    /// `NCORE_ERR_SYSTEM`: a system call failed (shared memory, mapping, memory).
    System,
    /// `NCORE_ERR_INTERNAL`: an internal invariant broke (a bug in ncore or NCCL).
    Internal,
    /// `NCORE_ERR_INVALID_ARGUMENT`: an argument is invalid (Python's NcclInvalid).
    InvalidArgument,
    /// `NCORE_ERR_INVALID_USAGE`: valid arguments, but not now or not together.
    InvalidUsage,
    /// `NCORE_ERR_REMOTE`: a peer died, aborted or reported an error.
    Remote,
    /// `NCORE_IN_PROGRESS`: a non-blocking operation has not finished yet.
    InProgress,
    /// `NCORE_ERR_NOT_SUPPORTED`: the backend or hardware cannot do this.
    NotSupported,
    /// `NCORE_ERR_UNAVAILABLE`: the requested backend's library or device is
    /// missing, or libncore itself could not be loaded
    /// ([`library_path`](crate::library_path) says why).
    Unavailable,
    /// `NCORE_ERR_CLOSED`: a closed handle, or one whose communicator was destroyed.
    Closed,
    /// `NCORE_ERR_TIMEOUT`: a peer did not answer within the timeout.
    Timeout,
    /// A status this binding does not know (a newer library); holds the raw value.
    Unknown(u32),
}

impl ErrorKind {
    /// Maps a raw non-OK status to its kind.
    pub fn from_status(status: u32) -> ErrorKind {
        match status {
            sys::ncore_status_NCORE_ERR_UNHANDLED_CUDA => ErrorKind::UnhandledCuda,
            sys::ncore_status_NCORE_ERR_SYSTEM => ErrorKind::System,
            sys::ncore_status_NCORE_ERR_INTERNAL => ErrorKind::Internal,
            sys::ncore_status_NCORE_ERR_INVALID_ARGUMENT => ErrorKind::InvalidArgument,
            sys::ncore_status_NCORE_ERR_INVALID_USAGE => ErrorKind::InvalidUsage,
            sys::ncore_status_NCORE_ERR_REMOTE => ErrorKind::Remote,
            sys::ncore_status_NCORE_IN_PROGRESS => ErrorKind::InProgress,
            sys::ncore_status_NCORE_ERR_NOT_SUPPORTED => ErrorKind::NotSupported,
            sys::ncore_status_NCORE_ERR_UNAVAILABLE => ErrorKind::Unavailable,
            sys::ncore_status_NCORE_ERR_CLOSED => ErrorKind::Closed,
            sys::ncore_status_NCORE_ERR_TIMEOUT => ErrorKind::Timeout,
            other => ErrorKind::Unknown(other),
        }
    }

    /// The raw `ncore_status_t` value of this kind.
    pub fn status(self) -> u32 {
        match self {
            ErrorKind::UnhandledCuda => sys::ncore_status_NCORE_ERR_UNHANDLED_CUDA,
            ErrorKind::System => sys::ncore_status_NCORE_ERR_SYSTEM,
            ErrorKind::Internal => sys::ncore_status_NCORE_ERR_INTERNAL,
            ErrorKind::InvalidArgument => sys::ncore_status_NCORE_ERR_INVALID_ARGUMENT,
            ErrorKind::InvalidUsage => sys::ncore_status_NCORE_ERR_INVALID_USAGE,
            ErrorKind::Remote => sys::ncore_status_NCORE_ERR_REMOTE,
            ErrorKind::InProgress => sys::ncore_status_NCORE_IN_PROGRESS,
            ErrorKind::NotSupported => sys::ncore_status_NCORE_ERR_NOT_SUPPORTED,
            ErrorKind::Unavailable => sys::ncore_status_NCORE_ERR_UNAVAILABLE,
            ErrorKind::Closed => sys::ncore_status_NCORE_ERR_CLOSED,
            ErrorKind::Timeout => sys::ncore_status_NCORE_ERR_TIMEOUT,
            ErrorKind::Unknown(raw) => raw,
        }
    }

    /// The library's name for the status, e.g. "NCORE_ERR_INVALID_ARGUMENT".
    pub fn status_name(self) -> String {
        // SAFETY: ncore_status_string returns a static NUL-terminated string.
        unsafe { cstr_to_string(sys::ncore_status_string(self.status())) }
    }
}

/// A failed ncore call: its kind (status) and the library's message, which
/// names the function and the offending argument, e.g.
/// "ncore_send: peer: 7 is out of range [0, 4)".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    message: String,
}

impl Error {
    /// Makes an error from a kind and a message (used for checks this binding
    /// must do itself, such as a Rust slice too short for a count).
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error {
            kind,
            message: message.into(),
        }
    }

    /// The kind of failure; match on it to handle specific statuses.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The raw `ncore_status_t` value.
    pub fn status(&self) -> u32 {
        self.kind.status()
    }

    /// The library's message (may be empty if the library gave none).
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.message.is_empty() {
            write!(f, "{}", self.kind.status_name())
        } else {
            write!(f, "{} ({})", self.message, self.kind.status_name())
        }
    }
}

impl std::error::Error for Error {}

/// Result of an ncore call.
pub type Result<T> = std::result::Result<T, Error>;

/// Turns a status into a Result, reading the thread-local message right away
/// (same thread, before any other ncore call) when the status is an error.
/// `NCORE_IN_PROGRESS` is a success, as in NCCL and nccl.core: a call on a
/// non-blocking communicator was accepted and still runs (poll
/// [`Communicator::async_error`](crate::Communicator::async_error) until it
/// reports none, or just make the next call: it waits for it), and a
/// communicator that came with it is still initialising.
pub(crate) fn check(status: sys::ncore_status_t) -> Result<()> {
    if status == sys::ncore_status_NCORE_OK || status == sys::ncore_status_NCORE_IN_PROGRESS {
        return Ok(());
    }
    // SAFETY: the message is a NUL-terminated string owned by the library and
    // valid until the next ncore call on this thread; it is copied at once.
    let message = unsafe { cstr_to_string(sys::ncore_last_error_message()) };
    Err(Error {
        kind: ErrorKind::from_status(status),
        message,
    })
}

/// An InvalidArgument error made by the binding itself, formatted like the
/// library's: "<function>: <argument>: <what is wrong>".
pub(crate) fn invalid_argument(function: &str, argument: &str, what: String) -> Error {
    Error::new(
        ErrorKind::InvalidArgument,
        format!("{function}: {argument}: {what}"),
    )
}

/// Copies a C string owned by the library; NULL gives "".
///
/// # Safety
/// `ptr` must be NULL or point to a NUL-terminated string.
pub(crate) unsafe fn cstr_to_string(ptr: *const std::os::raw::c_char) -> String {
    if ptr.is_null() {
        String::new()
    } else {
        CStr::from_ptr(ptr).to_string_lossy().into_owned()
    }
}
