//! Custom reduction operators (`ncclRedOpCreatePreMulSum`, nccl.core
//! CustomRedOp): output = scalar * sum(inputs).

use std::ffi::c_void;

use ncore_sys as sys;

use crate::comm::Communicator;
use crate::error::{check, invalid_argument, Result};
use crate::handle::{handle_type, query};
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

handle_type! {
    /// A PreMulSum operator for one communicator and data type; its
    /// [`op`](CustomRedOp::op) is passed to collectives. `'scalar` is the
    /// life of a device-resident scalar, which every collective using the
    /// operator reads. Destroyed on drop, by `close`, or with its
    /// communicator.
    ///
    /// The borrow is enforced: an operator cannot outlive its device scalar.
    ///
    /// ```compile_fail,E0597
    /// # use ncore::{Backend, Communicator, DataType, DeviceMemory};
    /// # fn f(comm: &Communicator) -> ncore::Result<()> {
    /// let op = {
    ///     let scalar = DeviceMemory::alloc(4, Backend::Host)?;
    ///     comm.create_pre_mul_sum_device(&scalar, DataType::FLOAT32)?
    /// }; // `scalar` is freed here while `op` still reads it
    /// op.close()
    /// # }
    /// ```
    ///
    /// With the scalar kept alive, the same code compiles:
    ///
    /// ```no_run
    /// # use ncore::{Backend, Communicator, DataType, DeviceMemory};
    /// # fn f(comm: &Communicator) -> ncore::Result<()> {
    /// let scalar = DeviceMemory::alloc(4, Backend::Host)?;
    /// let op = comm.create_pre_mul_sum_device(&scalar, DataType::FLOAT32)?;
    /// op.close()
    /// # }
    /// ```
    pub struct CustomRedOp<'scalar>;
    borrows: "a device-resident scalar";
    close: close = sys::ncore_custom_redop_close, "Destroys the operator (local).";
    is_valid: sys::ncore_custom_redop_is_valid;
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
        check_scalar_len(scalar.len(), dtype)?;
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
        check_scalar_len(scalar.len(), dtype)?;
        // SAFETY: the scalar memory is borrowed for 'scalar, the operator's
        // lifetime.
        unsafe {
            let op =
                self.create_pre_mul_sum_raw(scalar.as_ptr(), dtype, ScalarResidence::Device)?;
            Ok(CustomRedOp::from_raw(op.into_raw()))
        }
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

impl CustomRedOp<'_> {
    /// The operator value to pass to collectives (nccl.core `CustomRedOp.op`).
    pub fn op(&self) -> Result<RedOp> {
        // SAFETY: out is valid for the call.
        query(|out| unsafe { sys::ncore_custom_redop_value(self.raw, out) }).map(RedOp::from_raw)
    }

    /// The data type the operator was made for.
    pub fn dtype(&self) -> Result<DataType> {
        // SAFETY: out is valid for the call.
        query(|out| unsafe { sys::ncore_custom_redop_dtype(self.raw, out) }).map(DataType::from_raw)
    }
}

/// A scalar given as `len` bytes must hold one element of `dtype` (an
/// unknown dtype is left for the library to refuse, with its message).
fn check_scalar_len(len: usize, dtype: DataType) -> Result<()> {
    match dtype.known_size() {
        Some(size) if len < size => Err(invalid_argument(
            "ncore_create_pre_mul_sum",
            "scalar",
            format!("{len} bytes for a {size}-byte element"),
        )),
        _ => Ok(()),
    }
}
