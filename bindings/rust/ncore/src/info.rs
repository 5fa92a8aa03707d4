//! What this process's ncore is and can do (`ncore_library_info`).
use std::ffi::CStr;
use std::os::raw::c_char;

use crate::error::{check, Result};
use crate::sys;
use crate::types::Backend;

/// Calls the chosen backend serves (`NCORE_FEATURE_*` bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Features(pub u32);

impl Features {
    /// `ncore_signal`, `ncore_put_signal`, `ncore_wait_signal`.
    pub const ONE_SIDED: Features = Features(sys::NCORE_FEATURE_ONE_SIDED);
    /// `ncore_comm_revoke`.
    pub const REVOKE: Features = Features(sys::NCORE_FEATURE_REVOKE);
    /// `ncore_comm_get_unique_id` and `ncore_comm_grow`.
    pub const GROW: Features = Features(sys::NCORE_FEATURE_GROW);
    /// `ncore_comm_suspend` and `ncore_comm_resume`.
    pub const SUSPEND: Features = Features(sys::NCORE_FEATURE_SUSPEND);
    /// `ncore_comm_mem_stat`.
    pub const MEM_STAT: Features = Features(sys::NCORE_FEATURE_MEM_STAT);
    /// `ncore_comm_init_rank_scalable` with more than one id.
    pub const SCALABLE_INIT: Features = Features(sys::NCORE_FEATURE_SCALABLE_INIT);

    /// Whether every bit of `other` is set here.
    pub fn contains(self, other: Features) -> bool {
        self.0 & other.0 == other.0
    }
}

/// The loaded libncore's description (`ncore_library_info_t`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LibraryInfo {
    /// `ncore_version_string()`.
    pub version: String,
    /// `ncore_abi_version()`.
    pub abi_version: u32,
    /// The backend AUTO resolves to; `None` when it resolves to none
    /// (`backend_reason` says why).
    pub backend: Option<Backend>,
    /// Why `backend` is what it is.
    pub backend_reason: String,
    /// What the chosen backend serves; empty when `backend` is `None`.
    pub features: Features,
    /// The loaded libnccl's version code (22809 for 2.28.9); 0 when none.
    pub nccl_version: i32,
    /// The file libnccl was loaded from; empty when none.
    pub nccl_path: String,
    /// CUDA devices of the NCCL backend; 0 without it.
    pub cuda_device_count: i32,
    /// The newest NCCL whose structs and calls ncore knows (23007 for
    /// 2.30.7; ABI 1.2).
    pub nccl_headers_version: i32,
    /// The CUDA version the loaded libnccl was built with (12090 for 12.9),
    /// from its banner; 0 when none (ABI 1.2).
    pub nccl_cuda_version: i32,
}

fn text(field: &[c_char]) -> String {
    // SAFETY: the library NUL-terminates every text field.
    unsafe { CStr::from_ptr(field.as_ptr()) }
        .to_string_lossy()
        .into_owned()
}

/// Describes the loaded libncore, probing NCCL as AUTO would.
pub fn library_info() -> Result<LibraryInfo> {
    // SAFETY: an all-zero struct is valid; struct_size is set below.
    let mut raw: sys::ncore_library_info_t = unsafe { std::mem::zeroed() };
    raw.struct_size = std::mem::size_of::<sys::ncore_library_info_t>() as u32;
    // SAFETY: raw is a full-size, writable struct.
    check(unsafe { sys::ncore_library_info(&mut raw) })?;
    Ok(LibraryInfo {
        version: text(&raw.version),
        abi_version: raw.abi_version,
        backend: Backend::from_raw(raw.backend as u32).filter(|b| *b != Backend::Auto),
        backend_reason: text(&raw.backend_reason),
        features: Features(raw.features),
        nccl_version: raw.nccl_version,
        nccl_path: text(&raw.nccl_path),
        cuda_device_count: raw.cuda_device_count,
        nccl_headers_version: raw.nccl_headers_version,
        nccl_cuda_version: raw.nccl_cuda_version,
    })
}
