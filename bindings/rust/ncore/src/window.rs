//! Registered windows for one-sided access (`ncclCommWindowRegister`,
//! nccl.core RegisteredWindowHandle).

use std::ffi::c_void;
use std::marker::PhantomData;
use std::ptr::NonNull;

use ncore_sys as sys;

use crate::comm::Communicator;
use crate::error::{check, Result};
use crate::handle::{non_null, NotSync};
use crate::memory::DeviceMemory;

/// Window registration flags (`NCORE_WINDOW_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WindowFlags(pub u32);

impl WindowFlags {
    /// `NCORE_WINDOW_DEFAULT`.
    pub const DEFAULT: WindowFlags = WindowFlags(sys::NCORE_WINDOW_DEFAULT);
    /// `NCORE_WINDOW_COLL_SYMMETRIC`: every rank registers the same size.
    pub const COLL_SYMMETRIC: WindowFlags = WindowFlags(sys::NCORE_WINDOW_COLL_SYMMETRIC);
}

/// This rank's handle of a collectively registered window over memory that
/// lives for `'mem`. Deregistered on drop or by [`close`](Window::close)
/// (local), or when its communicator is destroyed.
#[derive(Debug)]
pub struct Window<'mem> {
    raw: sys::ncore_window_t,
    _memory: PhantomData<&'mem DeviceMemory>,
    _not_sync: NotSync,
}

impl Communicator {
    /// Registers `memory` as this rank's part of a new window (collective).
    /// Memory from [`DeviceMemory`] is load/store reachable by every rank on
    /// the host backend, and is what NCCL windows require.
    pub fn register_window<'mem>(
        &self,
        memory: &'mem DeviceMemory,
        flags: WindowFlags,
    ) -> Result<Window<'mem>> {
        // SAFETY: the memory is borrowed for the window's lifetime; Rust code
        // reaches it only through copies, so peer writes alias nothing.
        unsafe { self.register_window_raw(memory.as_ptr(), memory.len(), flags) }
    }

    /// Registers `[ptr, ptr + size)` (`ncore_register_window`); the library
    /// rejects NULL, size 0 and unknown flags.
    ///
    /// # Safety
    /// The memory must stay valid, and not be accessed through Rust
    /// references, until the window is closed or its communicator destroyed:
    /// peers write into it.
    pub unsafe fn register_window_raw(
        &self,
        ptr: *mut c_void,
        size: usize,
        flags: WindowFlags,
    ) -> Result<Window<'static>> {
        let mut out = 0;
        check(sys::ncore_register_window(
            &mut out,
            self.as_raw(),
            ptr,
            size,
            flags.0,
        ))?;
        Ok(Window::from_raw(out))
    }
}

impl<'mem> Window<'mem> {
    /// Takes ownership of a raw window handle (closed on drop). A value that
    /// is not a live window makes every call answer `Closed` or
    /// `InvalidArgument`.
    ///
    /// # Safety
    /// If it is a live window, its memory must outlive `'mem`.
    pub unsafe fn from_raw(raw: u64) -> Window<'mem> {
        Window {
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

    /// Size of this rank's part in bytes.
    pub fn size(&self) -> Result<usize> {
        let mut out = 0;
        // SAFETY: out is valid.
        check(unsafe { sys::ncore_window_size(self.raw, &mut out) })?;
        Ok(out)
    }

    /// Size of `peer`'s part in bytes (a put to `peer` must fit in it).
    pub fn peer_size(&self, peer: i32) -> Result<usize> {
        let mut out = 0;
        // SAFETY: out is valid.
        check(unsafe { sys::ncore_window_peer_size(self.raw, peer, &mut out) })?;
        Ok(out)
    }

    /// The buffer this rank registered (nccl.core `user_ptr`).
    pub fn user_pointer(&self) -> Result<*mut c_void> {
        let mut out = std::ptr::null_mut();
        // SAFETY: out is valid.
        check(unsafe { sys::ncore_window_user_pointer(self.raw, &mut out) })?;
        Ok(out)
    }

    /// The registration flags.
    pub fn flags(&self) -> Result<WindowFlags> {
        let mut out = 0;
        // SAFETY: out is valid.
        check(unsafe { sys::ncore_window_flags(self.raw, &mut out) })?;
        Ok(WindowFlags(out))
    }

    /// The backend's own window handle (NCCL: the `ncclWindow_t`).
    pub fn native_handle(&self) -> Result<usize> {
        let mut out = 0;
        // SAFETY: out is valid.
        check(unsafe { sys::ncore_window_native_handle(self.raw, &mut out) })?;
        Ok(out)
    }

    /// Pointer to byte `offset` of LSA-team member `lsa_rank`'s part, or
    /// `None` when that part is not load/store reachable.
    pub fn lsa_device_pointer(
        &self,
        lsa_rank: i32,
        offset: usize,
    ) -> Result<Option<NonNull<c_void>>> {
        let mut out = std::ptr::null_mut();
        // SAFETY: out is valid.
        check(unsafe {
            sys::ncore_window_lsa_device_pointer(self.raw, lsa_rank, offset, &mut out)
        })?;
        Ok(non_null(out))
    }

    /// Pointer to byte `offset` of world rank `peer`'s part, or `None` when
    /// not load/store reachable (nccl.core returns None).
    pub fn peer_device_pointer(&self, peer: i32, offset: usize) -> Result<Option<NonNull<c_void>>> {
        let mut out = std::ptr::null_mut();
        // SAFETY: out is valid.
        check(unsafe { sys::ncore_window_peer_device_pointer(self.raw, peer, offset, &mut out) })?;
        Ok(non_null(out))
    }

    /// Multimem pointer to byte `offset`, or `None` without NVLink multicast
    /// (always on the host backend).
    pub fn lsa_multimem_device_pointer(&self, offset: usize) -> Result<Option<NonNull<c_void>>> {
        let mut out = std::ptr::null_mut();
        // SAFETY: out is valid.
        check(unsafe {
            sys::ncore_window_lsa_multimem_device_pointer(self.raw, offset, &mut out)
        })?;
        Ok(non_null(out))
    }

    /// Deregisters this rank's part (local). Idempotent; later calls answer
    /// `Closed`.
    pub fn close(&self) -> Result<()> {
        // SAFETY: plain handle.
        check(unsafe { sys::ncore_window_close(self.raw) })
    }

    /// True while the window is open.
    pub fn is_valid(&self) -> bool {
        // SAFETY: plain handle; cannot fail.
        unsafe { sys::ncore_window_is_valid(self.raw) != 0 }
    }
}

impl Drop for Window<'_> {
    fn drop(&mut self) {
        if self.raw != sys::NCORE_NULL_HANDLE {
            // SAFETY: close is idempotent on any handle value.
            unsafe { sys::ncore_window_close(self.raw) };
        }
    }
}
