//! Communication memory from the backend's allocator (`ncore_mem_alloc`:
//! ncclMemAlloc on NCCL, shared memory on the host backend), copies and
//! device selection: what a Rust program needs without a CUDA crate.

use std::ffi::c_void;

use ncore_sys as sys;

use crate::buffer::DeviceSlice;
use crate::error::{check, invalid_argument, Result};
use crate::stream::{raw_stream, Stream};
use crate::types::{Backend, DataType, Element};

/// Direction of a raw copy (`ncore_memcpy_kind_t`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum MemcpyKind {
    /// Inferred from the pointers (unified addressing).
    Default,
    /// Host memory to device memory.
    HostToDevice,
    /// Device memory to host memory.
    DeviceToHost,
    /// Device memory to device memory.
    DeviceToDevice,
    /// Host memory to host memory.
    HostToHost,
}

impl MemcpyKind {
    fn raw(self) -> sys::ncore_memcpy_kind_t {
        match self {
            MemcpyKind::Default => sys::ncore_memcpy_kind_NCORE_MEMCPY_DEFAULT,
            MemcpyKind::HostToDevice => sys::ncore_memcpy_kind_NCORE_MEMCPY_HOST_TO_DEVICE,
            MemcpyKind::DeviceToHost => sys::ncore_memcpy_kind_NCORE_MEMCPY_DEVICE_TO_HOST,
            MemcpyKind::DeviceToDevice => sys::ncore_memcpy_kind_NCORE_MEMCPY_DEVICE_TO_DEVICE,
            MemcpyKind::HostToHost => sys::ncore_memcpy_kind_NCORE_MEMCPY_HOST_TO_HOST,
        }
    }
}

/// `size` bytes from the backend's allocator, owned: freed on drop or by
/// [`DeviceMemory::free`]. Windows over it have real peer pointers (host
/// backend) and it is what NCCL windows require. Zeroed at allocation.
///
/// Rust code never holds references into it: data moves in and out through
/// copies, so peers writing into it (windows, symmetric access) cannot
/// break Rust's aliasing rules.
#[derive(Debug)]
pub struct DeviceMemory {
    ptr: *mut c_void,
    size: usize,
    backend: Backend,
}

// SAFETY: the memory is plain bytes reached only through the library's
// copies; freeing it from another thread is allowed.
unsafe impl Send for DeviceMemory {}
// SAFETY: &self methods only read (copies out of it); writes need &mut.
unsafe impl Sync for DeviceMemory {}

impl DeviceMemory {
    /// Allocates `size` bytes (> 0) for `backend` and zeroes them.
    pub fn alloc(size: usize, backend: Backend) -> Result<DeviceMemory> {
        let mut ptr: *mut c_void = std::ptr::null_mut();
        // SAFETY: ptr is a valid place for the result.
        check(unsafe { sys::ncore_mem_alloc(&mut ptr, size, backend.raw()) })?;
        let memory = DeviceMemory { ptr, size, backend };
        // SAFETY: the allocation holds size bytes; synchronised below.
        unsafe { memset(ptr, 0, size, None, backend)? };
        crate::stream::synchronize(None, backend)?;
        Ok(memory)
    }

    /// Start address (a device pointer on NCCL).
    pub fn as_ptr(&self) -> *mut c_void {
        self.ptr
    }

    /// Size in bytes.
    pub fn len(&self) -> usize {
        self.size
    }

    /// True for an empty allocation (never: the size is > 0).
    pub fn is_empty(&self) -> bool {
        self.size == 0
    }

    /// The backend that allocated it.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The whole allocation as elements of `dtype` (the tail that does not
    /// fill an element is left out; unknown types count bytes).
    pub fn as_slice(&mut self, dtype: DataType) -> DeviceSlice<'_> {
        let elem = dtype.known_size().unwrap_or(1);
        // SAFETY: the view lies within the allocation, which is borrowed
        // mutably for the view's lifetime.
        unsafe { DeviceSlice::from_raw_parts(self.ptr, self.size / elem, dtype) }
    }

    /// Copies `data` into the allocation at byte `offset` and waits for it.
    pub fn write<T: Element>(&mut self, offset: usize, data: &[T]) -> Result<()> {
        let bytes = std::mem::size_of_val(data);
        self.check_range("DeviceMemory::write", offset, bytes)?;
        // SAFETY: the range lies within the allocation; data is host memory.
        unsafe {
            memcpy(
                self.ptr.cast::<u8>().add(offset).cast(),
                data.as_ptr().cast(),
                bytes,
                MemcpyKind::HostToDevice,
                None,
                self.backend,
            )?;
        }
        crate::stream::synchronize(None, self.backend)
    }

    /// Copies from byte `offset` of the allocation into `out` and waits for it.
    pub fn read<T: Element>(&self, offset: usize, out: &mut [T]) -> Result<()> {
        let bytes = std::mem::size_of_val(out);
        self.check_range("DeviceMemory::read", offset, bytes)?;
        crate::stream::synchronize(None, self.backend)?;
        // SAFETY: the range lies within the allocation; out is host memory.
        unsafe {
            memcpy(
                out.as_mut_ptr().cast(),
                self.ptr.cast::<u8>().add(offset).cast(),
                bytes,
                MemcpyKind::DeviceToHost,
                None,
                self.backend,
            )?;
        }
        crate::stream::synchronize(None, self.backend)
    }

    /// Reads the whole allocation as a vector of `T` (trailing bytes that do
    /// not fill a `T` are left out).
    pub fn to_vec<T: Element + Default>(&self) -> Result<Vec<T>> {
        let mut out = vec![T::default(); self.size / std::mem::size_of::<T>()];
        self.read(0, &mut out)?;
        Ok(out)
    }

    /// Frees the memory, reporting a failure that drop would ignore.
    pub fn free(self) -> Result<()> {
        let ptr = self.into_raw();
        // SAFETY: ptr came from ncore_mem_alloc of this backend and is freed once.
        unsafe { free_raw(ptr.0, ptr.1) }
    }

    /// Gives up ownership: returns the pointer and backend without freeing.
    /// Free them later with [`free_raw`].
    pub fn into_raw(self) -> (*mut c_void, Backend) {
        let parts = (self.ptr, self.backend);
        std::mem::forget(self);
        parts
    }

    fn check_range(&self, function: &str, offset: usize, bytes: usize) -> Result<()> {
        if offset.checked_add(bytes).is_none_or(|end| end > self.size) {
            return Err(invalid_argument(
                function,
                "offset",
                format!(
                    "{offset} + {bytes} bytes is beyond the {} bytes allocated",
                    self.size
                ),
            ));
        }
        Ok(())
    }
}

impl Drop for DeviceMemory {
    fn drop(&mut self) {
        // SAFETY: ptr came from ncore_mem_alloc; errors cannot be reported here.
        unsafe { sys::ncore_mem_free(self.ptr, self.backend.raw()) };
    }
}

/// Frees memory from `ncore_mem_alloc` (NULL is a no-op). The library
/// rejects a pointer it did not allocate, or one already freed, with
/// `InvalidArgument`.
///
/// # Safety
/// No Rust value may still use the memory (a [`DeviceMemory`] given up with
/// [`DeviceMemory::into_raw`] is the intended source).
pub unsafe fn free_raw(ptr: *mut c_void, backend: Backend) -> Result<()> {
    check(sys::ncore_mem_free(ptr, backend.raw()))
}

/// Copies `bytes` bytes from `src` to `dst`, ordered on `stream`
/// (asynchronous on NCCL: synchronise before reading `dst` on the host).
///
/// # Safety
/// `dst` and `src` must be valid for `bytes` bytes of the kinds `kind` names
/// and must not overlap. NULL with `bytes > 0` is rejected by the library.
pub unsafe fn memcpy(
    dst: *mut c_void,
    src: *const c_void,
    bytes: usize,
    kind: MemcpyKind,
    stream: Option<&Stream>,
    backend: Backend,
) -> Result<()> {
    check(sys::ncore_memcpy(
        dst,
        src,
        bytes,
        kind.raw(),
        raw_stream(stream),
        backend.raw(),
    ))
}

/// Sets `bytes` bytes at `dst` to `value`, ordered on `stream`.
///
/// # Safety
/// `dst` must be valid for `bytes` bytes of writes.
pub unsafe fn memset(
    dst: *mut c_void,
    value: u8,
    bytes: usize,
    stream: Option<&Stream>,
    backend: Backend,
) -> Result<()> {
    check(sys::ncore_memset(
        dst,
        value as i32,
        bytes,
        raw_stream(stream),
        backend.raw(),
    ))
}

/// Number of devices of `backend`: CUDA devices (NCCL), 1 (host).
pub fn device_count(backend: Backend) -> Result<i32> {
    let mut out = 0;
    // SAFETY: out is a valid place for the result.
    check(unsafe { sys::ncore_device_count(backend.raw(), &mut out) })?;
    Ok(out)
}

/// Makes `device` the calling thread's current device (host: -1 or 0 only).
pub fn set_device(backend: Backend, device: i32) -> Result<()> {
    // SAFETY: plain values.
    check(unsafe { sys::ncore_device_set(backend.raw(), device) })
}

/// The calling thread's current device; -1 on the host backend.
pub fn current_device(backend: Backend) -> Result<i32> {
    let mut out = 0;
    // SAFETY: out is a valid place for the result.
    check(unsafe { sys::ncore_device_get(backend.raw(), &mut out) })?;
    Ok(out)
}
