//! Symmetric memory in the NVSHMEM style (nvshmem.core interop): every rank
//! allocates the same size collectively and can address the others' parts.

use std::ffi::c_void;
use std::ptr::NonNull;

use ncore_sys as sys;

use crate::comm::Communicator;
use crate::error::{check, Result};
use crate::handle::{handle_type, non_null, query};
use crate::stream::{raw_stream, Stream};
use crate::types::Element;

handle_type! {
    /// This rank's handle of a symmetric allocation; freed (locally) on
    /// drop, by [`free`](SymmetricMemory::free), or with its communicator.
    pub struct SymmetricMemory;
    close: free = sys::ncore_symmetric_free, "Frees this rank's part (local).";
    is_valid: sys::ncore_symmetric_is_valid;
}

impl Communicator {
    /// Allocates `size` bytes (zeroed) on every rank (collective, same size).
    pub fn symmetric_alloc(&self, size: usize) -> Result<SymmetricMemory> {
        let mut out = 0;
        // SAFETY: out is valid.
        check(unsafe { sys::ncore_symmetric_alloc(&mut out, self.as_raw(), size) })?;
        Ok(SymmetricMemory::from_raw(out))
    }
}

impl SymmetricMemory {
    /// Size of each rank's part in bytes.
    pub fn size(&self) -> Result<usize> {
        // SAFETY: out is valid for the call.
        query(|out| unsafe { sys::ncore_symmetric_size(self.raw, out) })
    }

    /// This rank's part (a device pointer on NCCL).
    pub fn local_pointer(&self) -> Result<*mut c_void> {
        // SAFETY: out is valid for the call.
        query(|out| unsafe { sys::ncore_symmetric_local_pointer(self.raw, out) })
    }

    /// Rank `pe`'s part as addressable here (`nvshmem_ptr`), or `None` when
    /// not load/store reachable.
    pub fn peer_pointer(&self, pe: i32) -> Result<Option<NonNull<c_void>>> {
        // SAFETY: out is valid for the call.
        query(|out| unsafe { sys::ncore_symmetric_peer_pointer(self.raw, pe, out) }).map(non_null)
    }

    /// Copies `src` into rank `pe`'s part at byte `offset` (nvshmem put);
    /// complete for the target after a synchronisation (barrier, signal).
    /// The library checks that it fits.
    pub fn put<T: Element>(
        &self,
        offset: usize,
        src: &[T],
        pe: i32,
        stream: Option<&Stream>,
    ) -> Result<()> {
        // SAFETY: src is valid for its bytes during the call (host: copied on
        // return; NCCL: host memory, staged by the library).
        unsafe {
            self.put_raw(
                offset,
                src.as_ptr().cast(),
                std::mem::size_of_val(src),
                pe,
                stream,
            )
        }
    }

    /// Copies from rank `pe`'s part at byte `offset` into `dst` (nvshmem get).
    pub fn get<T: Element>(
        &self,
        dst: &mut [T],
        offset: usize,
        pe: i32,
        stream: Option<&Stream>,
    ) -> Result<()> {
        // SAFETY: dst is valid and writable for its bytes during the call.
        unsafe {
            self.get_raw(
                dst.as_mut_ptr().cast(),
                offset,
                std::mem::size_of_val(dst),
                pe,
                stream,
            )
        }
    }

    /// `ncore_symmetric_put` as is (the library rejects NULL with bytes > 0).
    ///
    /// # Safety
    /// `src` must be NULL or valid for `bytes` bytes until the copy completes.
    pub unsafe fn put_raw(
        &self,
        offset: usize,
        src: *const c_void,
        bytes: usize,
        pe: i32,
        stream: Option<&Stream>,
    ) -> Result<()> {
        check(sys::ncore_symmetric_put(
            self.raw,
            offset,
            src,
            bytes,
            pe,
            raw_stream(stream),
        ))
    }

    /// `ncore_symmetric_get` as is.
    ///
    /// # Safety
    /// `dst` must be NULL or valid for `bytes` bytes of writes until the copy
    /// completes.
    pub unsafe fn get_raw(
        &self,
        dst: *mut c_void,
        offset: usize,
        bytes: usize,
        pe: i32,
        stream: Option<&Stream>,
    ) -> Result<()> {
        check(sys::ncore_symmetric_get(
            dst,
            self.raw,
            offset,
            bytes,
            pe,
            raw_stream(stream),
        ))
    }
}
