//! Framework buffers resolved by the library (`ncore_buffer_desc_t`):
//! DLPack tensors and CUDA / NumPy array-interface descriptions become
//! (pointer, count, type, device), checked in C so that every language
//! accepts and refuses the same buffers with the same messages; and the
//! communicator's check that a resolved buffer lives where it works.

use std::ffi::{c_void, CString};
use std::mem::size_of;

use ncore_sys as sys;

use crate::buffer::DeviceSlice;
use crate::comm::Communicator;
use crate::error::{check, invalid_argument, Result};
use crate::types::DataType;

/// Where a resolved buffer lives (`ncore_device_type_t`); a newtype so a
/// value from a newer library is kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DeviceType(pub i32);

impl DeviceType {
    /// Host memory (`NCORE_DEVICE_CPU`); the device id is -1.
    pub const CPU: DeviceType = DeviceType(sys::ncore_device_type_NCORE_DEVICE_CPU as i32);
    /// CUDA device memory, or managed / pinned memory a device can reach
    /// (`NCORE_DEVICE_CUDA`).
    pub const CUDA: DeviceType = DeviceType(sys::ncore_device_type_NCORE_DEVICE_CUDA as i32);
}

/// A buffer as the library resolved it (`ncore_buffer_desc_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BufferDesc {
    /// First element.
    pub ptr: *mut c_void,
    /// Number of elements.
    pub count: usize,
    /// Element type.
    pub dtype: DataType,
    /// Where the memory lives.
    pub device_type: DeviceType,
    /// CUDA device ordinal, or -1 for host memory.
    pub device_id: i32,
}

impl BufferDesc {
    /// Resolves a DLPack tensor (`ncore_buffer_resolve_dlpack`): it must be
    /// C-contiguous, of a type with an ncore equivalent, on the CPU or a
    /// CUDA device; the library says which rule a refused tensor breaks.
    ///
    /// # Safety
    /// `tensor` must be NULL (refused by the library) or point to a valid
    /// `DLTensor` whose `shape` (and `strides`, unless NULL) hold `ndim`
    /// entries, for the duration of the call.
    pub unsafe fn from_dlpack(tensor: *const c_void) -> Result<BufferDesc> {
        let mut raw = empty_raw();
        check(sys::ncore_buffer_resolve_dlpack(&mut raw, tensor.cast()))?;
        Ok(BufferDesc::from_raw(&raw))
    }

    /// Resolves a CUDA Array Interface description, or NumPy's array
    /// interface when `device_id` is -1 (`ncore_buffer_resolve_array_interface`):
    /// the data address, the shape, the strides in bytes (`None`:
    /// C-contiguous) and the type string (`"<f4"`, `"|u1"`, ...). No memory
    /// is read; the result says where the buffer is.
    pub fn from_array_interface(
        data: usize,
        shape: &[i64],
        strides: Option<&[i64]>,
        typestr: &str,
        device_id: i32,
    ) -> Result<BufferDesc> {
        const FUNCTION: &str = "ncore_buffer_resolve_array_interface";
        // The C call reads ndim strides: their number is the one thing it
        // cannot check itself.
        if let Some(s) = strides {
            if s.len() != shape.len() {
                return Err(invalid_argument(
                    FUNCTION,
                    "strides",
                    format!("holds {} entries for a shape of {}", s.len(), shape.len()),
                ));
            }
        }
        let ndim = i32::try_from(shape.len()).map_err(|_| {
            invalid_argument(
                FUNCTION,
                "shape",
                format!("{} dimensions are too many", shape.len()),
            )
        })?;
        let typestr = CString::new(typestr)
            .map_err(|_| invalid_argument(FUNCTION, "typestr", "contains a NUL byte".into()))?;
        let mut raw = empty_raw();
        // SAFETY: shape and strides hold ndim entries, typestr is a C string;
        // all live for the call.
        check(unsafe {
            sys::ncore_buffer_resolve_array_interface(
                &mut raw,
                data,
                ndim,
                if shape.is_empty() {
                    std::ptr::null()
                } else {
                    shape.as_ptr()
                },
                strides.map_or(std::ptr::null(), |s| s.as_ptr()),
                typestr.as_ptr(),
                device_id,
            )
        })?;
        Ok(BufferDesc::from_raw(&raw))
    }

    /// The resolved memory as a view the operations accept.
    ///
    /// # Safety
    /// As [`DeviceSlice::from_raw_parts`]: the memory must stay valid (and,
    /// where written, writable and not otherwise accessed) for `'a`.
    pub unsafe fn as_device_slice<'a>(&self) -> DeviceSlice<'a> {
        DeviceSlice::from_raw_parts(self.ptr, self.count, self.dtype)
    }

    fn from_raw(raw: &sys::ncore_buffer_desc_t) -> BufferDesc {
        BufferDesc {
            ptr: raw.ptr,
            count: raw.count,
            dtype: DataType::from_raw(raw.dtype as u32),
            device_type: DeviceType(raw.device_type),
            device_id: raw.device_id,
        }
    }

    fn to_raw(self) -> sys::ncore_buffer_desc_t {
        let mut raw = empty_raw();
        raw.ptr = self.ptr;
        raw.count = self.count;
        raw.dtype = self.dtype.raw() as i32;
        raw.device_type = self.device_type.0;
        raw.device_id = self.device_id;
        raw
    }
}

/// An output descriptor of this binding's size, for the library to fill.
fn empty_raw() -> sys::ncore_buffer_desc_t {
    // SAFETY: all-zero bytes are a valid value of the plain C struct.
    let mut raw: sys::ncore_buffer_desc_t = unsafe { std::mem::zeroed() };
    raw.struct_size = size_of::<sys::ncore_buffer_desc_t>() as u32;
    raw
}

impl Communicator {
    /// Checks that a resolved buffer can be used with this communicator
    /// (`ncore_comm_check_buffer`): host memory on the host backend, memory
    /// of the communicator's device on NCCL. `argument_name` names the
    /// buffer in the message (`None`: "buffer").
    pub fn check_buffer(&self, desc: &BufferDesc, argument_name: Option<&str>) -> Result<()> {
        let name = argument_name.map(CString::new).transpose().map_err(|_| {
            invalid_argument(
                "ncore_comm_check_buffer",
                "argument_name",
                "contains a NUL byte".into(),
            )
        })?;
        let raw = desc.to_raw();
        // SAFETY: raw and name live for the call.
        check(unsafe {
            sys::ncore_comm_check_buffer(
                self.as_raw(),
                &raw,
                name.as_ref().map_or(std::ptr::null(), |n| n.as_ptr()),
            )
        })
    }
}
