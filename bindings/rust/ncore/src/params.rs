//! NCCL's parameters, read-only (`ncore/params.h`; nccl.core's `params`
//! and `dump_params`): from NCCL's parameter API where the backend AUTO
//! picks is NCCL 2.30 or newer, else from the environment (the `NCCL_*` and
//! `NCORE_*` variables that are set). Every call asks anew.

use std::ffi::CString;
use std::os::raw::c_char;

use ncore_sys as sys;

use crate::error::{check, invalid_argument, Error, ErrorKind, Result};

/// Reads a text under the size protocol: the length, then the text, asked
/// again (a few times) if it grew in between.
fn read_text(
    call: impl Fn(*mut c_char, usize, &mut usize) -> sys::ncore_status_t,
) -> Result<String> {
    let mut length = 0usize;
    check(call(std::ptr::null_mut(), 0, &mut length))?;
    for _ in 0..8 {
        let mut buffer = vec![0u8; length + 1];
        match check(call(
            buffer.as_mut_ptr() as *mut c_char,
            buffer.len(),
            &mut length,
        )) {
            Ok(()) => {
                buffer.truncate(length);
                return Ok(String::from_utf8_lossy(&buffer).into_owned());
            }
            Err(e)
                if e.kind() == ErrorKind::InvalidArgument && e.message().contains("capacity") =>
            {
                continue
            }
            Err(e) => return Err(e),
        }
    }
    Err(Error::new(
        ErrorKind::Internal,
        "ncore_param_get: the parameters kept changing while being read".to_string(),
    ))
}

/// The value of parameter `key` (e.g. `"NCCL_DEBUG"`); `InvalidArgument`
/// with "no parameter" when there is none of that name.
pub fn param(key: &str) -> Result<String> {
    let key = CString::new(key).map_err(|_| {
        invalid_argument("ncore_param_get", "key", "contains a NUL byte".to_string())
    })?;
    // SAFETY: key is NUL-terminated; the buffer and length are valid for
    // each call; nothing is kept.
    read_text(|buffer, capacity, length| unsafe {
        sys::ncore_param_get(key.as_ptr(), buffer, capacity, length)
    })
}

/// The names of all parameters, in the source's order.
pub fn param_keys() -> Result<Vec<String>> {
    // SAFETY: the buffer and length are valid for each call.
    let text = read_text(|buffer, capacity, length| unsafe {
        sys::ncore_param_keys(buffer, capacity, length)
    })?;
    Ok(text.lines().map(str::to_owned).collect())
}

/// Prints every parameter to standard output as `NAME=value` lines.
pub fn dump_params() -> Result<()> {
    // SAFETY: no arguments.
    check(unsafe { sys::ncore_param_dump() })
}
