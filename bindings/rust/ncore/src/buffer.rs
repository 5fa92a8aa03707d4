//! What calls read from and write to: host slices of [`Element`]s, and
//! [`DeviceSlice`], a typed view of device memory (or any memory the caller
//! vouches for) given as a raw pointer.

use std::ffi::c_void;
use std::marker::PhantomData;

use crate::error::{invalid_argument, Result};
use crate::types::{DataType, Element};

/// Memory an operation reads: a start pointer, an element count and a type.
///
/// # Safety
/// `buffer_ptr` must point to `buffer_len` readable elements of
/// `buffer_dtype` (or be NULL, which the library rejects when a count is
/// non-zero) for as long as the implementing value is borrowed.
pub unsafe trait Buffer {
    /// First element.
    fn buffer_ptr(&self) -> *const c_void;
    /// Number of elements available from the first one.
    fn buffer_len(&self) -> usize;
    /// Element type.
    fn buffer_dtype(&self) -> DataType;
}

/// Memory an operation writes.
///
/// # Safety
/// As [`Buffer`], and the memory must be writable while mutably borrowed.
pub unsafe trait BufferMut: Buffer {
    /// First element, for writing.
    fn buffer_ptr_mut(&mut self) -> *mut c_void;
}

// SAFETY: a slice's pointer and length describe exactly its elements.
unsafe impl<T: Element> Buffer for [T] {
    fn buffer_ptr(&self) -> *const c_void {
        self.as_ptr().cast()
    }
    fn buffer_len(&self) -> usize {
        self.len()
    }
    fn buffer_dtype(&self) -> DataType {
        T::DTYPE
    }
}

// SAFETY: a mutable slice is writable.
unsafe impl<T: Element> BufferMut for [T] {
    fn buffer_ptr_mut(&mut self) -> *mut c_void {
        self.as_mut_ptr().cast()
    }
}

// SAFETY: delegates to the slice.
unsafe impl<T: Element> Buffer for Vec<T> {
    fn buffer_ptr(&self) -> *const c_void {
        self.as_slice().buffer_ptr()
    }
    fn buffer_len(&self) -> usize {
        self.len()
    }
    fn buffer_dtype(&self) -> DataType {
        T::DTYPE
    }
}

// SAFETY: delegates to the slice.
unsafe impl<T: Element> BufferMut for Vec<T> {
    fn buffer_ptr_mut(&mut self) -> *mut c_void {
        self.as_mut_slice().buffer_ptr_mut()
    }
}

// SAFETY: delegates to the slice.
unsafe impl<T: Element, const N: usize> Buffer for [T; N] {
    fn buffer_ptr(&self) -> *const c_void {
        self.as_slice().buffer_ptr()
    }
    fn buffer_len(&self) -> usize {
        N
    }
    fn buffer_dtype(&self) -> DataType {
        T::DTYPE
    }
}

// SAFETY: delegates to the slice.
unsafe impl<T: Element, const N: usize> BufferMut for [T; N] {
    fn buffer_ptr_mut(&mut self) -> *mut c_void {
        self.as_mut_slice().buffer_ptr_mut()
    }
}

/// A typed view of `len` elements of `dtype` at a raw address: device memory
/// on the NCCL backend (e.g. from [`DeviceMemory`](crate::DeviceMemory) or
/// another CUDA library), or host memory the caller vouches for.
///
/// The view is `Copy` and does not own the memory; the `unsafe` constructor
/// is where the caller promises the memory is valid. Any [`DataType`] is
/// allowed, including the 16- and 8-bit floats that have no Rust type. A
/// NULL view is allowed too: the library itself rejects it where a non-zero
/// count needs memory, with its usual message.
#[derive(Clone, Copy, Debug)]
pub struct DeviceSlice<'a> {
    ptr: *mut c_void,
    len: usize,
    dtype: DataType,
    _memory: PhantomData<&'a mut [u8]>,
}

impl<'a> DeviceSlice<'a> {
    /// A view of `len` elements of `dtype` starting at `ptr`.
    ///
    /// # Safety
    /// Unless NULL, `ptr` must address `len` elements of `dtype` that stay
    /// valid (and, where written, writable and not otherwise accessed) for
    /// `'a`, in memory the communicator's backend can use.
    pub unsafe fn from_raw_parts(ptr: *mut c_void, len: usize, dtype: DataType) -> Self {
        DeviceSlice {
            ptr,
            len,
            dtype,
            _memory: PhantomData,
        }
    }

    /// A NULL view of `dtype`: for root-only buffers on other ranks, and for
    /// zero counts.
    pub fn null(dtype: DataType) -> DeviceSlice<'static> {
        DeviceSlice {
            ptr: std::ptr::null_mut(),
            len: 0,
            dtype,
            _memory: PhantomData,
        }
    }

    /// The start address.
    pub fn as_ptr(&self) -> *mut c_void {
        self.ptr
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when the view holds no element.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Element type.
    pub fn dtype(&self) -> DataType {
        self.dtype
    }

    /// The sub-view starting `offset` elements in (`InvalidArgument` if
    /// `offset` is beyond the end).
    pub fn offset(&self, offset: usize) -> Result<DeviceSlice<'a>> {
        if offset > self.len {
            return Err(invalid_argument(
                "DeviceSlice::offset",
                "offset",
                format!("{offset} is beyond the {} elements of the view", self.len),
            ));
        }
        let elem = self.dtype.known_size().unwrap_or(1);
        let ptr = if self.ptr.is_null() {
            self.ptr
        } else {
            // SAFETY: offset <= len, so the result stays within the view.
            unsafe { self.ptr.cast::<u8>().add(offset * elem).cast() }
        };
        Ok(DeviceSlice {
            ptr,
            len: self.len - offset,
            dtype: self.dtype,
            _memory: PhantomData,
        })
    }
}

// SAFETY: the constructor's contract covers reads.
unsafe impl Buffer for DeviceSlice<'_> {
    fn buffer_ptr(&self) -> *const c_void {
        self.ptr
    }
    fn buffer_len(&self) -> usize {
        self.len
    }
    fn buffer_dtype(&self) -> DataType {
        self.dtype
    }
}

// SAFETY: the constructor's contract covers writes.
unsafe impl BufferMut for DeviceSlice<'_> {
    fn buffer_ptr_mut(&mut self) -> *mut c_void {
        self.ptr
    }
}

/// Checks, for the binding, that `buffer` holds `needed` elements. A NULL
/// pointer or an unknown data type is left for the library to report, so
/// that its message is the one every language gives.
pub(crate) fn check_len<B: Buffer + ?Sized>(
    function: &str,
    argument: &str,
    buffer: &B,
    needed: usize,
) -> Result<()> {
    if buffer.buffer_ptr().is_null() || buffer.buffer_dtype().known_size().is_none() {
        return Ok(());
    }
    if buffer.buffer_len() < needed {
        return Err(invalid_argument(
            function,
            argument,
            format!(
                "holds {} elements but {needed} are needed",
                buffer.buffer_len()
            ),
        ));
    }
    Ok(())
}

/// Checks that two buffers of one call have the same element type.
pub(crate) fn check_same_dtype<A: Buffer + ?Sized, B: Buffer + ?Sized>(
    function: &str,
    a: &A,
    b: &B,
) -> Result<()> {
    if a.buffer_dtype() != b.buffer_dtype() {
        return Err(invalid_argument(
            function,
            "recvbuf",
            format!(
                "element type {:?} differs from sendbuf's {:?}",
                b.buffer_dtype(),
                a.buffer_dtype()
            ),
        ));
    }
    Ok(())
}
