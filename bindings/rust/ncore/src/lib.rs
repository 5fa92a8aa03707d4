//! Safe Rust API for ncore: communicators, point-to-point, collectives,
//! registered buffers and windows, one-sided signals, device communicators
//! and symmetric memory, over NCCL or (without a GPU) shared memory between
//! processes of one machine. Built on the raw [`ncore_sys`] bindings; no
//! other dependency.
//!
//! ```no_run
//! // Started as one of N processes by `build/bin/ncore-run -n N`:
//! use ncore::{Communicator, RedOp};
//! let comm = Communicator::from_env(None)?;
//! let send = vec![comm.rank()? as f32; 4];
//! let mut recv = vec![0f32; 4];
//! comm.allreduce(&send, &mut recv, 4, RedOp::SUM, None)?;
//! # Ok::<(), ncore::Error>(())
//! ```
//!
//! Model, mirroring the C ABI (`abi/include/ncore.h`):
//! - every call returns [`Result`]; an [`Error`] carries the status
//!   ([`ErrorKind`]) and the library's message naming the bad argument;
//! - handles are owned values freed on drop, and closable explicitly
//!   (idempotent `close` / `destroy`); a closed handle, or one whose
//!   communicator was destroyed, answers [`ErrorKind::Closed`] — handles are
//!   checked integers, so no order of drops is ever undefined behaviour;
//! - buffers are host slices of [`Element`] types (host backend) or
//!   [`DeviceSlice`] views of device memory; [`DeviceMemory`] owns memory from
//!   the backend's allocator, which windows want;
//! - [`Communicator`] and its resources are `Send` but not `Sync` (calls on
//!   one communicator must be serialised); [`AbortHandle`] may abort from any
//!   thread.
#![deny(missing_docs)]

mod buffer;
mod buffer_desc;
mod cft;
mod coll;
mod coll_config;
mod coll_gen;
mod comm;
mod comm_control;
mod config;
mod custom_redop;
mod devcomm;
mod devcomm_requirements;
mod error;
mod group;
mod handle;
mod info;
mod memory;
mod onesided;
mod op_table;
mod p2p;
mod params;
mod registered_buffer;
mod stream;
mod symmetric;
mod team;
mod types;
mod unique_id;
mod versioned;
mod window;

pub use buffer::{Buffer, BufferMut, DeviceSlice};
pub use buffer_desc::{BufferDesc, DeviceType};
pub use cft::{CftCap, CftLeInfo, CftTeamMode};
pub use coll_config::{CollConfig, VendorValue};
pub use comm::{AbortHandle, Communicator, ShrinkFlags, SPLIT_NOCOLOR};
pub use comm_control::{CommProperties, MemStat, SuspendFlags};
pub use config::{Config, HostCftMode, NvlsHostMode};
pub use custom_redop::{CustomRedOp, ScalarResidence};
pub use devcomm::{DevComm, DevCommInfo, DevCommRequirements, GinConnectionType, GinType};
pub use devcomm_requirements::{
    MultimemHandle, ResourceHandle, ResourceRequirement, TeamRequirement,
};
pub use error::{Error, ErrorKind, Result};
pub use group::{group, group_end, group_start, Group};
pub use info::{library_info, Features, LibraryInfo};
pub use memory::{
    current_device, device_count, free_raw, memcpy, memset, set_device, DeviceMemory, MemcpyKind,
};
pub use onesided::{SignalOptions, WaitSignalDesc};
pub use params::{dump_params, param, param_keys};
pub use registered_buffer::RegisteredBuffer;
pub use stream::{synchronize, Stream};
pub use symmetric::SymmetricMemory;
pub use team::Team;
pub use types::{Backend, DataType, Element, RedOp};
pub use unique_id::{UniqueId, UNIQUE_ID_BYTES};
pub use window::{Window, WindowFlags};

/// Raw bindings, for what the safe API does not cover.
pub use ncore_sys as sys;

/// ABI version of the loaded library (major * 10000 + minor * 100); 0 when
/// no libncore can be loaded ([`library_path`] says why).
pub fn abi_version() -> u32 {
    // SAFETY: no arguments; cannot fail.
    unsafe { sys::ncore_abi_version() }
}

/// Version of the loaded library, "MAJOR.MINOR.PATCH"; "" when no libncore
/// can be loaded.
pub fn version() -> String {
    // SAFETY: returns a static NUL-terminated string.
    unsafe { error::cstr_to_string(sys::ncore_version_string()) }
}

/// True when the loaded library can serve this binding: same ABI major
/// version, and at least the minor version the binding was built against
/// (false when none can be loaded).
pub fn abi_compatible() -> bool {
    abi_mismatch(abi_version(), sys::NCORE_ABI_VERSION).is_none()
}

/// The rule every binding applies when it loads (docs/abi-policy.md): the
/// same major version, and a library minor at least the binding's. Returns
/// the message for a `loaded` library version that breaks it against the
/// `built` one, `None` for one that serves.
pub fn abi_mismatch(loaded: u32, built: u32) -> Option<String> {
    if loaded / 10000 == built / 10000 && loaded >= built {
        return None;
    }
    Some(format!(
        "ncore: libncore.so has ABI version {loaded}, this binding was built against \
         {built}: the major versions must match and the library's minor must be at least \
         the binding's"
    ))
}

static ABI_CHECKED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Where libncore was loaded from, or why none could be: every place tried
/// and what to set. When none can be, every call of this crate that returns
/// a [`Result`] returns an [`ErrorKind::Unavailable`](crate::ErrorKind)
/// error with this message; nothing aborts.
pub fn library_path() -> std::result::Result<&'static std::path::Path, sys::LoadError> {
    sys::library_path()
}

/// Runs when the program (or library) holding this crate is loaded, before
/// `main`, as Python's import and Go's package `init` do: a library this
/// binding cannot trust stops the program with the shared message. A
/// missing library is not checked here: a program that never calls ncore
/// runs, and every call reports it as an error (`library_path`).
extern "C" fn check_abi_at_load() {
    if sys::library_path().is_err() {
        return;
    }
    if let Some(message) = abi_mismatch(abi_version(), sys::NCORE_ABI_VERSION) {
        use std::io::Write;
        let _ = writeln!(std::io::stderr(), "{message}");
        std::process::abort();
    }
    ABI_CHECKED.store(true, std::sync::atomic::Ordering::Relaxed);
}

// The loader runs the functions of .init_array before main; #[used] keeps the
// entry in every program that links this crate.
#[used]
#[link_section = ".init_array"]
static CHECK_ABI_AT_LOAD: extern "C" fn() = check_abi_at_load;

/// Whether the load-time ABI check ran and passed (for tests).
#[doc(hidden)]
pub fn abi_checked_at_load() -> bool {
    ABI_CHECKED.load(std::sync::atomic::Ordering::Relaxed)
}
