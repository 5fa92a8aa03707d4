//! Buffers registered for zero-copy transfers (`ncclCommRegister`, nccl.core
//! RegisteredBufferHandle).

use std::ffi::c_void;

use ncore_sys as sys;

use crate::buffer::Buffer;
use crate::comm::Communicator;
use crate::error::{check, Result};
use crate::handle::{handle_type, query};

handle_type! {
    /// A registration of memory that lives for `'mem`; deregistered on drop,
    /// by [`close`](RegisteredBuffer::close), or with its communicator.
    ///
    /// The borrow is enforced: a registration cannot outlive its memory.
    ///
    /// ```compile_fail,E0597
    /// # use ncore::Communicator;
    /// # fn f(comm: &Communicator) -> ncore::Result<()> {
    /// let registration = {
    ///     let data = vec![0f32; 16];
    ///     comm.register_buffer(&data)?
    /// }; // `data` is freed here while still registered
    /// registration.close()
    /// # }
    /// ```
    pub struct RegisteredBuffer<'mem>;
    borrows: "the registered memory";
    close: close = sys::ncore_registered_buffer_close, "Deregisters (local).";
    is_valid: sys::ncore_registered_buffer_is_valid;
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

impl RegisteredBuffer<'_> {
    /// Size of the registered range in bytes.
    pub fn size(&self) -> Result<usize> {
        // SAFETY: out is valid for the call.
        query(|out| unsafe { sys::ncore_registered_buffer_size(self.raw, out) })
    }

    /// Start of the registered range.
    pub fn pointer(&self) -> Result<*mut c_void> {
        // SAFETY: out is valid for the call.
        query(|out| unsafe { sys::ncore_registered_buffer_pointer(self.raw, out) })
    }

    /// The backend's own registration handle.
    pub fn native_handle(&self) -> Result<usize> {
        // SAFETY: out is valid for the call.
        query(|out| unsafe { sys::ncore_registered_buffer_native_handle(self.raw, out) })
    }
}
