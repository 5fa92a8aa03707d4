//! What every communicator resource shares (nccl.core's CommResource): an
//! integer handle that the library checks on every call, closed explicitly
//! (idempotent) or when its communicator is destroyed.

use std::cell::Cell;
use std::marker::PhantomData;

/// Makes a resource type `Send` but not `Sync`: calls on one communicator's
/// resources must be serialised like calls on the communicator itself.
pub(crate) type NotSync = PhantomData<Cell<()>>;

/// Converts a pointer out-parameter into `Option`: NULL means "not
/// reachable" for the pointer queries.
pub(crate) fn non_null(ptr: *mut std::ffi::c_void) -> Option<std::ptr::NonNull<std::ffi::c_void>> {
    std::ptr::NonNull::new(ptr)
}
