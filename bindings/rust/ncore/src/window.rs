//! Registered windows for one-sided access (`ncclCommWindowRegister`,
//! nccl.core RegisteredWindowHandle).

use std::ffi::c_void;
use std::ptr::NonNull;

use ncore_sys as sys;

use crate::comm::Communicator;
use crate::error::{check, Result};
use crate::handle::{handle_type, non_null, query};
use crate::memory::DeviceMemory;

/// Window registration flags (`NCORE_WINDOW_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WindowFlags(pub u32);

impl WindowFlags {
    /// `NCORE_WINDOW_DEFAULT`.
    pub const DEFAULT: WindowFlags = WindowFlags(sys::NCORE_WINDOW_DEFAULT);
    /// `NCORE_WINDOW_COLL_SYMMETRIC`: every rank registers the same size.
    pub const COLL_SYMMETRIC: WindowFlags = WindowFlags(sys::NCORE_WINDOW_COLL_SYMMETRIC);
    /// `NCORE_WINDOW_STRICT_ORDERING` (NCCL 2.29.7+): one-sided operations
    /// into the window land in the order they were issued.
    pub const STRICT_ORDERING: WindowFlags = WindowFlags(sys::NCORE_WINDOW_STRICT_ORDERING);
    /// `NCORE_WINDOW_GIN_ONLY` (NCCL 2.32+): register for GIN access only.
    pub const GIN_ONLY: WindowFlags = WindowFlags(sys::NCORE_WINDOW_GIN_ONLY);
    /// `NCORE_WINDOW_CFT_COUNTED` (NCCL 2.32+; not on the host backend):
    /// register against counted CFT logical endpoints.
    pub const CFT_COUNTED: WindowFlags = WindowFlags(sys::NCORE_WINDOW_CFT_COUNTED);
}

impl std::ops::BitOr for WindowFlags {
    type Output = WindowFlags;
    fn bitor(self, other: WindowFlags) -> WindowFlags {
        WindowFlags(self.0 | other.0)
    }
}

handle_type! {
    /// This rank's handle of a collectively registered window over memory
    /// that lives for `'mem`. Deregistered on drop or by
    /// [`close`](Window::close) (local), or when its communicator is
    /// destroyed.
    ///
    /// The borrow is enforced: a window cannot outlive its memory.
    ///
    /// ```compile_fail,E0597
    /// # use ncore::{Backend, Communicator, DeviceMemory, WindowFlags};
    /// # fn f(comm: &Communicator) -> ncore::Result<()> {
    /// let window = {
    ///     let memory = DeviceMemory::alloc(64, Backend::Host)?;
    ///     comm.register_window(&memory, WindowFlags::DEFAULT)?
    /// }; // `memory` is freed here while peers may still write into it
    /// window.close()
    /// # }
    /// ```
    pub struct Window<'mem>;
    borrows: "this rank's part of the window (peers write into it)";
    close: close = sys::ncore_window_close, "Deregisters this rank's part (local).";
    is_valid: sys::ncore_window_is_valid;
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

impl Window<'_> {
    /// Size of this rank's part in bytes.
    pub fn size(&self) -> Result<usize> {
        // SAFETY: out is valid for the call.
        query(|out| unsafe { sys::ncore_window_size(self.raw, out) })
    }

    /// Size of `peer`'s part in bytes (a put to `peer` must fit in it).
    pub fn peer_size(&self, peer: i32) -> Result<usize> {
        // SAFETY: out is valid for the call.
        query(|out| unsafe { sys::ncore_window_peer_size(self.raw, peer, out) })
    }

    /// The buffer this rank registered (nccl.core `user_ptr`).
    pub fn user_pointer(&self) -> Result<*mut c_void> {
        // SAFETY: out is valid for the call.
        query(|out| unsafe { sys::ncore_window_user_pointer(self.raw, out) })
    }

    /// The registration flags.
    pub fn flags(&self) -> Result<WindowFlags> {
        // SAFETY: out is valid for the call.
        query(|out| unsafe { sys::ncore_window_flags(self.raw, out) }).map(WindowFlags)
    }

    /// The backend's own window handle (NCCL: the `ncclWindow_t`).
    pub fn native_handle(&self) -> Result<usize> {
        // SAFETY: out is valid for the call.
        query(|out| unsafe { sys::ncore_window_native_handle(self.raw, out) })
    }

    /// Pointer to byte `offset` of LSA-team member `lsa_rank`'s part, or
    /// `None` when that part is not load/store reachable.
    pub fn lsa_device_pointer(
        &self,
        lsa_rank: i32,
        offset: usize,
    ) -> Result<Option<NonNull<c_void>>> {
        // SAFETY: out is valid for the call.
        query(|out| unsafe {
            sys::ncore_window_lsa_device_pointer(self.raw, lsa_rank, offset, out)
        })
        .map(non_null)
    }

    /// Pointer to byte `offset` of world rank `peer`'s part, or `None` when
    /// not load/store reachable (nccl.core returns None).
    pub fn peer_device_pointer(&self, peer: i32, offset: usize) -> Result<Option<NonNull<c_void>>> {
        // SAFETY: out is valid for the call.
        query(|out| unsafe { sys::ncore_window_peer_device_pointer(self.raw, peer, offset, out) })
            .map(non_null)
    }

    /// Multimem pointer to byte `offset`, or `None` without NVLink multicast
    /// (always on the host backend).
    pub fn lsa_multimem_device_pointer(&self, offset: usize) -> Result<Option<NonNull<c_void>>> {
        // SAFETY: out is valid for the call.
        query(|out| unsafe { sys::ncore_window_lsa_multimem_device_pointer(self.raw, offset, out) })
            .map(non_null)
    }
}
