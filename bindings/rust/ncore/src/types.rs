//! Data types, reduction operators, backends and the element types that host
//! slices may hold.

use std::fmt;

use ncore_sys as sys;

use crate::error::{check, Result};

/// An element type (`ncore_dtype_t`); the values equal NCCL's `ncclDataType_t`.
///
/// A newtype rather than an enum so that any raw value can be passed through
/// to the library, which then reports an unknown one as an error (as the C
/// API does) instead of the binding refusing to represent it.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct DataType(u32);

impl DataType {
    /// `NCORE_INT8`.
    pub const INT8: DataType = DataType(sys::ncore_dtype_NCORE_INT8);
    /// `NCORE_UINT8`.
    pub const UINT8: DataType = DataType(sys::ncore_dtype_NCORE_UINT8);
    /// `NCORE_INT32`.
    pub const INT32: DataType = DataType(sys::ncore_dtype_NCORE_INT32);
    /// `NCORE_UINT32`.
    pub const UINT32: DataType = DataType(sys::ncore_dtype_NCORE_UINT32);
    /// `NCORE_INT64`.
    pub const INT64: DataType = DataType(sys::ncore_dtype_NCORE_INT64);
    /// `NCORE_UINT64`.
    pub const UINT64: DataType = DataType(sys::ncore_dtype_NCORE_UINT64);
    /// `NCORE_FLOAT16` (IEEE half precision).
    pub const FLOAT16: DataType = DataType(sys::ncore_dtype_NCORE_FLOAT16);
    /// `NCORE_FLOAT32`.
    pub const FLOAT32: DataType = DataType(sys::ncore_dtype_NCORE_FLOAT32);
    /// `NCORE_FLOAT64`.
    pub const FLOAT64: DataType = DataType(sys::ncore_dtype_NCORE_FLOAT64);
    /// `NCORE_BFLOAT16`.
    pub const BFLOAT16: DataType = DataType(sys::ncore_dtype_NCORE_BFLOAT16);
    /// `NCORE_FLOAT8E4M3`.
    pub const FLOAT8_E4M3: DataType = DataType(sys::ncore_dtype_NCORE_FLOAT8E4M3);
    /// `NCORE_FLOAT8E5M2`.
    pub const FLOAT8_E5M2: DataType = DataType(sys::ncore_dtype_NCORE_FLOAT8E5M2);

    /// Every data type the library defines, in value order.
    pub const ALL: [DataType; 12] = [
        DataType::INT8,
        DataType::UINT8,
        DataType::INT32,
        DataType::UINT32,
        DataType::INT64,
        DataType::UINT64,
        DataType::FLOAT16,
        DataType::FLOAT32,
        DataType::FLOAT64,
        DataType::BFLOAT16,
        DataType::FLOAT8_E4M3,
        DataType::FLOAT8_E5M2,
    ];

    /// Wraps a raw `ncore_dtype_t` value, known or not.
    pub const fn from_raw(raw: u32) -> DataType {
        DataType(raw)
    }

    /// The raw `ncore_dtype_t` value.
    pub const fn raw(self) -> u32 {
        self.0
    }

    /// Size of one element in bytes (`ncore_dtype_size`); fails with
    /// `InvalidArgument` for an unknown value.
    pub fn size(self) -> Result<usize> {
        let mut out = 0usize;
        // SAFETY: out is a valid place for the result.
        check(unsafe { sys::ncore_dtype_size(self.0, &mut out) })?;
        Ok(out)
    }

    /// The library's lower-case name ("float32", "bfloat16", ...), the names
    /// nccl.core uses; fails with `InvalidArgument` for an unknown value.
    pub fn name(self) -> Result<&'static str> {
        let mut out: *const std::os::raw::c_char = std::ptr::null();
        // SAFETY: out receives a pointer to a static string.
        check(unsafe { sys::ncore_dtype_name(self.0, &mut out) })?;
        // SAFETY: on success the library wrote a static NUL-terminated ASCII string.
        let name = unsafe { std::ffi::CStr::from_ptr(out) };
        Ok(name.to_str().unwrap_or("unknown"))
    }

    /// Looks a data type up by its library name ("int32", "float8_e4m3", ...).
    pub fn from_name(name: &str) -> Option<DataType> {
        DataType::ALL
            .into_iter()
            .find(|d| d.name().map(|n| n == name).unwrap_or(false))
    }

    /// Maps a DLPack data type (`DLDataTypeCode` code, bits, lanes)
    /// (`ncore_dtype_from_dlpack`); `InvalidArgument` naming the type when
    /// ncore has no equivalent (bool, complex, lanes != 1, ...).
    pub fn from_dlpack(code: u8, bits: u8, lanes: u16) -> Result<DataType> {
        let mut out = 0;
        // SAFETY: out is a valid place for the result.
        check(unsafe { sys::ncore_dtype_from_dlpack(code, bits, lanes, &mut out) })?;
        Ok(DataType(out))
    }

    /// Maps a NumPy array-interface type string ("<f4", "|u1", ...)
    /// (`ncore_dtype_from_typestr`); `InvalidArgument` otherwise.
    pub fn from_typestr(typestr: &str) -> Result<DataType> {
        let text = std::ffi::CString::new(typestr).map_err(|_| {
            crate::error::invalid_argument(
                "ncore_dtype_from_typestr",
                "typestr",
                "contains a NUL byte".into(),
            )
        })?;
        let mut out = 0;
        // SAFETY: text is NUL-terminated; out is a valid place for the result.
        check(unsafe { sys::ncore_dtype_from_typestr(text.as_ptr(), &mut out) })?;
        Ok(DataType(out))
    }

    /// Element size without an error: `None` for an unknown value. Used for
    /// the binding's own length checks, which leave unknown types to the
    /// library to report.
    pub(crate) fn known_size(self) -> Option<usize> {
        match self.0 {
            0 | 1 | 10 | 11 => Some(1),
            6 | 9 => Some(2),
            2 | 3 | 7 => Some(4),
            4 | 5 | 8 => Some(8),
            _ => None,
        }
    }
}

impl fmt::Debug for DataType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Ok(name) => write!(f, "DataType({name})"),
            Err(_) => write!(f, "DataType(raw {})", self.0),
        }
    }
}

/// A reduction operator (`ncore_redop_t`): a built-in one, or the value of a
/// [`CustomRedOp`](crate::CustomRedOp) from [`CustomRedOp::op`](crate::CustomRedOp::op).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct RedOp(i32);

impl RedOp {
    /// `NCORE_SUM`.
    pub const SUM: RedOp = RedOp(sys::NCORE_SUM);
    /// `NCORE_PROD`.
    pub const PROD: RedOp = RedOp(sys::NCORE_PROD);
    /// `NCORE_MAX`.
    pub const MAX: RedOp = RedOp(sys::NCORE_MAX);
    /// `NCORE_MIN`.
    pub const MIN: RedOp = RedOp(sys::NCORE_MIN);
    /// `NCORE_AVG`: the sum divided by the number of ranks (integer division
    /// for integer types).
    pub const AVG: RedOp = RedOp(sys::NCORE_AVG);

    /// Wraps a raw `ncore_redop_t`; the library validates it when used.
    pub const fn from_raw(raw: i32) -> RedOp {
        RedOp(raw)
    }

    /// The raw `ncore_redop_t` value.
    pub const fn raw(self) -> i32 {
        self.0
    }
}

/// Which implementation runs a communicator (`ncore_backend_t`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Backend {
    /// NCCL when libnccl, libcuda and a device are present, else the host
    /// backend; the environment variable `NCORE_BACKEND` overrides it.
    Auto,
    /// Processes of one machine talking through shared memory; host buffers.
    Host,
    /// NCCL on CUDA devices; device buffers.
    Nccl,
}

impl Backend {
    /// The raw `ncore_backend_t` value.
    pub fn raw(self) -> u32 {
        match self {
            Backend::Auto => sys::ncore_backend_NCORE_BACKEND_AUTO,
            Backend::Host => sys::ncore_backend_NCORE_BACKEND_HOST,
            Backend::Nccl => sys::ncore_backend_NCORE_BACKEND_NCCL,
        }
    }

    /// Maps a raw value; `None` for one this binding does not know.
    pub fn from_raw(raw: u32) -> Option<Backend> {
        match raw {
            sys::ncore_backend_NCORE_BACKEND_AUTO => Some(Backend::Auto),
            sys::ncore_backend_NCORE_BACKEND_HOST => Some(Backend::Host),
            sys::ncore_backend_NCORE_BACKEND_NCCL => Some(Backend::Nccl),
            _ => None,
        }
    }

    /// The concrete backend `self` resolves to in this process
    /// (`ncore_backend_resolve`): Auto becomes Host or Nccl, a concrete
    /// request is checked for availability (`Unavailable` if missing).
    pub fn resolve(self) -> Result<Backend> {
        let mut out = 0u32;
        // SAFETY: out is a valid place for the result.
        check(unsafe { sys::ncore_backend_resolve(self.raw(), &mut out) })?;
        Ok(Backend::from_raw(out).unwrap_or(Backend::Host))
    }
}

/// A Rust type that host slices given to ncore may hold: its [`DataType`]
/// is known at compile time.
///
/// # Safety
/// `DTYPE`'s element size must equal `size_of::<Self>()`, and every bit
/// pattern the library may write must be a valid value of `Self`.
pub unsafe trait Element: Copy + Send + Sync + 'static {
    /// The data type of this element type.
    const DTYPE: DataType;
}

// SAFETY: sizes match the data types and every bit pattern is valid.
unsafe impl Element for i8 {
    const DTYPE: DataType = DataType::INT8;
}
// SAFETY: as above.
unsafe impl Element for u8 {
    const DTYPE: DataType = DataType::UINT8;
}
// SAFETY: as above.
unsafe impl Element for i32 {
    const DTYPE: DataType = DataType::INT32;
}
// SAFETY: as above.
unsafe impl Element for u32 {
    const DTYPE: DataType = DataType::UINT32;
}
// SAFETY: as above.
unsafe impl Element for i64 {
    const DTYPE: DataType = DataType::INT64;
}
// SAFETY: as above.
unsafe impl Element for u64 {
    const DTYPE: DataType = DataType::UINT64;
}
// SAFETY: as above.
unsafe impl Element for f32 {
    const DTYPE: DataType = DataType::FLOAT32;
}
// SAFETY: as above.
unsafe impl Element for f64 {
    const DTYPE: DataType = DataType::FLOAT64;
}
