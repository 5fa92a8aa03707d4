//! Custom reduction operators (`ncclRedOpCreatePreMulSum`, nccl.core
//! CustomRedOp): output = scalar * sum(inputs).

use std::ffi::c_void;
use std::marker::PhantomData;

use ncore_sys as sys;

use crate::comm::Communicator;
use crate::error::{check, invalid_argument, Result};
use crate::handle::NotSync;
use crate::memory::DeviceMemory;
use crate::types::{DataType, Element, RedOp};

/// Where the scalar of a PreMulSum lives (`ncore_scalar_residence_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScalarResidence {
    /// Device-accessible memory, read by every collective using the operator.
    Device,
    /// Host memory, copied before the create call returns.
    HostImmediate,
}

impl ScalarResidence {
    fn raw(self) -> sys::ncore_scalar_residence_t {
        match self {
            ScalarResidence::Device => sys::ncore_scalar_residence_NCORE_SCALAR_DEVICE,
            ScalarResidence::HostImmediate => {
                sys::ncore_scalar_residence_NCORE_SCALAR_HOST_IMMEDIATE
            }
        }
    }
}

/// A PreMulSum operator for one communicator and data type; its
/// [`op`](CustomRedOp::op) is passed to collectives. `'scalar` is the life of
/// a device-resident scalar. Destroyed on drop, by `close`, or with its
/// communicator.
#[derive(Debug)]
pub struct CustomRedOp<'scalar> {
    raw: sys::ncore_custom_redop_t,
    _scalar: PhantomData<&'scalar ()>,
    _not_sync: NotSync,
}

impl Communicator {
    /// Creates a PreMulSum with a host scalar copied at creation; the data
    /// type is the scalar's.
    pub fn create_pre_mul_sum<T: Element>(&self, scalar: T) -> Result<CustomRedOp<'static>> {
        // SAFETY: the scalar is one element of T::DTYPE, copied by the call.
        unsafe {
            self.create_pre_mul_sum_raw(
                (&scalar as *const T).cast(),
                T::DTYPE,
                ScalarResidence::HostImmediate,
            )
        }
    }

    /// Creates a PreMulSum with a host scalar given as the raw bytes of one
    /// element of `dtype` (for float16, bfloat16 and the float8 types, which
    /// have no Rust type).
    pub fn create_pre_mul_sum_bytes(
        &self,
        scalar: &[u8],
        dtype: DataType,
    ) -> Result<CustomRedOp<'static>> {
        if let Some(size) = dtype.known_size() {
            if scalar.len() < size {
                return Err(invalid_argument(
                    "ncore_create_pre_mul_sum",
                    "scalar",
                    format!("{} bytes for a {size}-byte element", scalar.len()),
                ));
            }
        }
        // SAFETY: scalar holds one element of a known dtype (an unknown dtype
        // is rejected by the library before it reads).
        unsafe {
            self.create_pre_mul_sum_raw(
                scalar.as_ptr().cast(),
                dtype,
                ScalarResidence::HostImmediate,
            )
        }
    }

    /// Creates a PreMulSum whose scalar (first element of `scalar`, of
    /// `dtype`) stays in device memory and is read by each collective.
    pub fn create_pre_mul_sum_device<'scalar>(
        &self,
        scalar: &'scalar DeviceMemory,
        dtype: DataType,
    ) -> Result<CustomRedOp<'scalar>> {
        if let Some(size) = dtype.known_size() {
            if scalar.len() < size {
                return Err(invalid_argument(
                    "ncore_create_pre_mul_sum",
                    "scalar",
                    format!("{} bytes for a {size}-byte element", scalar.len()),
                ));
            }
        }
        // SAFETY: the scalar memory is borrowed for the operator's lifetime.
        let op = unsafe {
            self.create_pre_mul_sum_raw(scalar.as_ptr(), dtype, ScalarResidence::Device)?
        };
        Ok(CustomRedOp {
            raw: op.into_raw(),
            _scalar: PhantomData,
            _not_sync: PhantomData,
        })
    }

    /// `ncore_create_pre_mul_sum` as is; the library rejects a NULL scalar.
    ///
    /// # Safety
    /// `scalar` must be NULL or point to one element of `dtype`; with
    /// `Device` residence it must stay valid while the operator is open.
    pub unsafe fn create_pre_mul_sum_raw(
        &self,
        scalar: *const c_void,
        dtype: DataType,
        residence: ScalarResidence,
    ) -> Result<CustomRedOp<'static>> {
        let mut out = 0;
        check(sys::ncore_create_pre_mul_sum(
            &mut out,
            self.as_raw(),
            scalar,
            dtype.raw(),
            residence.raw(),
        ))?;
        Ok(CustomRedOp::from_raw(out))
    }
}

impl<'scalar> CustomRedOp<'scalar> {
    /// Takes ownership of a raw handle (closed on drop); any value is
    /// memory-safe, since the library checks handles.
    pub fn from_raw(raw: u64) -> CustomRedOp<'scalar> {
        CustomRedOp {
            raw,
            _scalar: PhantomData,
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

    /// The operator value to pass to collectives (nccl.core `CustomRedOp.op`).
    pub fn op(&self) -> Result<RedOp> {
        let mut out = 0;
        // SAFETY: out is valid.
        check(unsafe { sys::ncore_custom_redop_value(self.raw, &mut out) })?;
        Ok(RedOp::from_raw(out))
    }

    /// The data type the operator was made for.
    pub fn dtype(&self) -> Result<DataType> {
        let mut out = 0;
        // SAFETY: out is valid.
        check(unsafe { sys::ncore_custom_redop_dtype(self.raw, &mut out) })?;
        Ok(DataType::from_raw(out))
    }

    /// Destroys the operator. Idempotent; later calls answer `Closed`.
    pub fn close(&self) -> Result<()> {
        // SAFETY: plain handle.
        check(unsafe { sys::ncore_custom_redop_close(self.raw) })
    }

    /// True while open.
    pub fn is_valid(&self) -> bool {
        // SAFETY: plain handle.
        unsafe { sys::ncore_custom_redop_is_valid(self.raw) != 0 }
    }
}

impl Drop for CustomRedOp<'_> {
    fn drop(&mut self) {
        if self.raw != sys::NCORE_NULL_HANDLE {
            // SAFETY: close is idempotent on any handle value.
            unsafe { sys::ncore_custom_redop_close(self.raw) };
        }
    }
}
