//! Versioned C structs (first field `struct_size`; docs/abi-policy.md): this
//! binding starts each from the library's defaults, through the struct's
//! `ncore_*_init` given this binding's own `size_of`, so the library never
//! writes more than the struct this crate was compiled with.

use std::mem::{size_of, MaybeUninit};

use ncore_sys as sys;

use crate::error::{check, Result};

/// The library's defaults for a `T` (one of the versioned structs), from its
/// `init` function.
pub(crate) fn defaults<T>(
    init: unsafe extern "C" fn(*mut T, usize) -> sys::ncore_status_t,
) -> Result<T> {
    let mut value = MaybeUninit::<T>::zeroed();
    // SAFETY: value holds size_of::<T>() bytes, exactly what init may write.
    check(unsafe { init(value.as_mut_ptr(), size_of::<T>()) })?;
    // SAFETY: zeroed, then filled by init: every field of these plain C
    // structs (integers and raw pointers) is valid for any bytes.
    Ok(unsafe { value.assume_init() })
}
