//! Streams (`ncore_stream_create`): CUDA streams on the NCCL backend, tokens
//! that order nothing extra on the host backend (host work completes on
//! return). Operations take `Option<&Stream>`; `None` is the default stream.

use ncore_sys as sys;

use crate::error::{check, Result};
use crate::types::Backend;

/// An owned stream; destroyed on drop or by [`Stream::destroy`].
#[derive(Debug)]
pub struct Stream {
    raw: sys::ncore_stream_t,
    backend: Backend,
}

// SAFETY: a CUDA stream (and a host token) may be used and destroyed from any
// thread; the library serialises what it must.
unsafe impl Send for Stream {}
// SAFETY: as above; no method mutates the Rust value.
unsafe impl Sync for Stream {}

impl Stream {
    /// Creates a stream of `backend` (Auto resolves as for communicators).
    pub fn new(backend: Backend) -> Result<Stream> {
        let mut raw: sys::ncore_stream_t = std::ptr::null_mut();
        // SAFETY: raw is a valid place for the result.
        check(unsafe { sys::ncore_stream_create(&mut raw, backend.raw()) })?;
        Ok(Stream { raw, backend })
    }

    /// The raw `ncore_stream_t` (a `cudaStream_t` on NCCL).
    pub fn as_raw(&self) -> sys::ncore_stream_t {
        self.raw
    }

    /// The backend the stream was made for.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Waits until all work enqueued on the stream completed.
    pub fn synchronize(&self) -> Result<()> {
        // SAFETY: raw is a live stream of this backend.
        check(unsafe { sys::ncore_stream_synchronize(self.raw, self.backend.raw()) })
    }

    /// Destroys the stream, reporting a failure that drop would ignore.
    pub fn destroy(mut self) -> Result<()> {
        let raw = std::mem::replace(&mut self.raw, std::ptr::null_mut());
        // SAFETY: raw is live and no longer referenced by self.
        check(unsafe { sys::ncore_stream_destroy(raw, self.backend.raw()) })
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        if !self.raw.is_null() {
            // SAFETY: raw is live; errors cannot be reported from drop.
            unsafe { sys::ncore_stream_destroy(self.raw, self.backend.raw()) };
        }
    }
}

/// The raw stream of an optional [`Stream`]: NULL (the default stream) for None.
pub(crate) fn raw_stream(stream: Option<&Stream>) -> sys::ncore_stream_t {
    stream.map_or(std::ptr::null_mut(), Stream::as_raw)
}

/// Waits until the work on `stream` (None: the default stream) of `backend`
/// completed.
pub fn synchronize(stream: Option<&Stream>, backend: Backend) -> Result<()> {
    // SAFETY: the stream, if any, is live for the call.
    check(unsafe { sys::ncore_stream_synchronize(raw_stream(stream), backend.raw()) })
}
