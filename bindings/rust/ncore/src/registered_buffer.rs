//! Buffers registered for zero-copy transfers (`ncclCommRegister`, nccl.core
//! RegisteredBufferHandle).

use std::ffi::c_void;
use std::marker::PhantomData;

use ncore_sys as sys;

use crate::buffer::Buffer;
use crate::comm::Communicator;
use crate::error::{check, Result};
use crate::handle::NotSync;

/// A registration of memory that lives for `'mem`; deregistered on drop, by
/// [`close`](RegisteredBuffer::close), or with its communicator.
#[derive(Debug)]
pub struct RegisteredBuffer<'mem> {
    raw: sys::ncore_registered_buffer_t,
    _memory: PhantomData<&'mem ()>,
    _not_sync: NotSync,
}

impl Communicator {
    /// Registers the memory of `buf` (local). The registration borrows it.
    pub fn register_buffer<'mem, B: Buffer + ?Sized>(
        &self,
        buf: &'mem B,
    ) -> Result<RegisteredBuffer<'mem>> {
        let bytes = buf.buffer_len() * buf.buffer_dtype().known_size().unwrap_or(1);
        // SAFETY: the range is buf's memory, borrowed for 'mem.
        unsafe { self.register_buffer_raw(buf.buffer_ptr() as *mut c_void, bytes) }
    }

    /// Registers `[ptr, ptr + size)` (`ncore_register_buffer`); the library
    /// rejects NULL and size 0.
    ///
    /// # Safety
    /// The memory must stay valid until the registration is closed.
    pub unsafe fn register_buffer_raw(
        &self,
        ptr: *mut c_void,
        size: usize,
    ) -> Result<RegisteredBuffer<'static>> {
        let mut out = 0;
        check(sys::ncore_register_buffer(
            &mut out,
            self.as_raw(),
            ptr,
            size,
        ))?;
        Ok(RegisteredBuffer::from_raw(out))
    }
}

impl<'mem> RegisteredBuffer<'mem> {
    /// Takes ownership of a raw handle (closed on drop); any value is
    /// memory-safe, since the library checks handles.
    pub fn from_raw(raw: u64) -> RegisteredBuffer<'mem> {
        RegisteredBuffer {
            raw,
            _memory: PhantomData,
            _not_sync: PhantomData,
        }
    }

    /// The raw handle (still owned by `self`).
    pub fn as_raw(&self) -> u64 {
        self.raw
    }

    /// Gives up ownership without closing.
    pub fn into_raw(self) -> u64 {
        let raw = self.raw;
        std::mem::forget(self);
        raw
    }

    /// Size of the registered range in bytes.
    pub fn size(&self) -> Result<usize> {
        let mut out = 0;
        // SAFETY: out is valid.
        check(unsafe { sys::ncore_registered_buffer_size(self.raw, &mut out) })?;
        Ok(out)
    }

    /// Start of the registered range.
    pub fn pointer(&self) -> Result<*mut c_void> {
        let mut out = std::ptr::null_mut();
        // SAFETY: out is valid.
        check(unsafe { sys::ncore_registered_buffer_pointer(self.raw, &mut out) })?;
        Ok(out)
    }

    /// The backend's own registration handle.
    pub fn native_handle(&self) -> Result<usize> {
        let mut out = 0;
        // SAFETY: out is valid.
        check(unsafe { sys::ncore_registered_buffer_native_handle(self.raw, &mut out) })?;
        Ok(out)
    }

    /// Deregisters. Idempotent; later calls answer `Closed`.
    pub fn close(&self) -> Result<()> {
        // SAFETY: plain handle.
        check(unsafe { sys::ncore_registered_buffer_close(self.raw) })
    }

    /// True while registered.
    pub fn is_valid(&self) -> bool {
        // SAFETY: plain handle.
        unsafe { sys::ncore_registered_buffer_is_valid(self.raw) != 0 }
    }
}

impl Drop for RegisteredBuffer<'_> {
    fn drop(&mut self) {
        if self.raw != sys::NCORE_NULL_HANDLE {
            // SAFETY: close is idempotent on any handle value.
            unsafe { sys::ncore_registered_buffer_close(self.raw) };
        }
    }
}
