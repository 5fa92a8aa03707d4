//! What every owned handle type shares (nccl.core's CommResource, git2-rs's
//! `Binding`): an integer handle that the library checks on every call, raw
//! access, an explicit idempotent close, `is_valid`, and a close on drop.
//! One macro, [`handle_type!`], defines all of it for each type, so the
//! types cannot drift apart.

use std::cell::Cell;
use std::marker::PhantomData;

/// Makes a handle type `Send` but not `Sync`: calls on one communicator and
/// its resources must be serialised, as in NCCL.
pub(crate) type NotSync = PhantomData<Cell<()>>;

/// Converts a pointer out-parameter into `Option`: NULL means "not
/// reachable" for the pointer queries.
pub(crate) fn non_null(ptr: *mut std::ffi::c_void) -> Option<std::ptr::NonNull<std::ffi::c_void>> {
    std::ptr::NonNull::new(ptr)
}

/// A value a query writes through its out-parameter: plain integers and raw
/// pointers, for which all-zero bytes are a valid value.
pub(crate) trait QueryOut: Copy {}
impl QueryOut for i32 {}
impl QueryOut for u32 {}
impl QueryOut for usize {}
impl QueryOut for *mut std::ffi::c_void {}

/// Runs a query that writes one value through its out-parameter (`call`
/// gets a pointer to a zeroed `T`) and returns the value, or the library's
/// error.
pub(crate) fn query<T: QueryOut>(
    call: impl FnOnce(*mut T) -> ncore_sys::ncore_status_t,
) -> crate::error::Result<T> {
    let mut out = std::mem::MaybeUninit::<T>::zeroed();
    crate::error::check(call(out.as_mut_ptr()))?;
    // SAFETY: zeroed, then possibly written by the library: valid either way
    // for the plain types of QueryOut.
    Ok(unsafe { out.assume_init() })
}

/// Defines an owned handle type: the struct (the raw `u64`, `Send` but not
/// `Sync`), `from_raw`, `as_raw`, `into_raw`, the explicit close (named by
/// the caller: `close`, `free`, `destroy`), `is_valid`, and `Drop`, which
/// closes a handle that is not `NCORE_NULL_HANDLE`.
///
/// Two forms:
/// - `pub struct Name;` — the handle holds no Rust memory, so any integer is
///   memory-safe (the library answers `Closed` or `InvalidArgument` for one
///   that is not a live handle of the type) and `from_raw` is safe;
/// - `pub struct Name<'a>; borrows: "...";` — the handle uses memory that
///   lives for `'a` (a registration, a device-resident scalar). `from_raw`
///   is `unsafe`: it is where the caller promises that memory outlives `'a`,
///   since the lifetime is otherwise chosen freely.
macro_rules! handle_type {
    (
        $(#[$meta:meta])*
        pub struct $name:ident;
        close: $close:ident = $close_fn:path, $close_doc:literal;
        is_valid: $valid_fn:path;
    ) => {
        $(#[$meta])*
        #[derive(Debug)]
        pub struct $name {
            raw: u64,
            _not_sync: $crate::handle::NotSync,
        }

        impl $name {
            /// Takes ownership of a raw handle (closed on drop). Any value is
            /// memory-safe: the library checks handles, and answers `Closed`
            /// or `InvalidArgument` for one that is not a live handle of this
            /// type.
            pub fn from_raw(raw: u64) -> $name {
                $name { raw, _not_sync: std::marker::PhantomData }
            }
        }

        handle_type!(@common $name, $close, $close_fn, $close_doc, $valid_fn);
    };
    (
        $(#[$meta:meta])*
        pub struct $name:ident<$lt:lifetime>;
        borrows: $borrows:literal;
        close: $close:ident = $close_fn:path, $close_doc:literal;
        is_valid: $valid_fn:path;
    ) => {
        $(#[$meta])*
        #[derive(Debug)]
        pub struct $name<$lt> {
            raw: u64,
            _memory: std::marker::PhantomData<&$lt ()>,
            _not_sync: $crate::handle::NotSync,
        }

        impl<$lt> $name<$lt> {
            /// Takes ownership of a raw handle (closed on drop). A value that
            /// is not a live handle of this type makes every call answer
            /// `Closed` or `InvalidArgument`.
            ///
            /// # Safety
            #[doc = concat!("If `raw` is a live handle, ", $borrows, " must stay valid ",
                            "for `", stringify!($lt), "` (the lifetime is chosen by the ",
                            "caller here, so the compiler cannot check it).")]
            pub unsafe fn from_raw(raw: u64) -> $name<$lt> {
                $name {
                    raw,
                    _memory: std::marker::PhantomData,
                    _not_sync: std::marker::PhantomData,
                }
            }
        }

        handle_type!(@common $name<$lt>, $close, $close_fn, $close_doc, $valid_fn);
    };
    (@common $name:ident $(<$lt:lifetime>)?, $close:ident, $close_fn:path, $close_doc:literal,
     $valid_fn:path) => {
        impl $(<$lt>)? $name $(<$lt>)? {
            /// The raw handle (still owned by `self`).
            pub fn as_raw(&self) -> u64 {
                self.raw
            }

            /// Gives up ownership: returns the handle without closing it.
            pub fn into_raw(self) -> u64 {
                let raw = self.raw;
                std::mem::forget(self);
                raw
            }

            #[doc = $close_doc]
            ///
            #[doc = concat!("`", stringify!($close_fn), "`. Idempotent; later calls on the ",
                            "handle answer `Closed`. Drop does the same but cannot report ",
                            "a failure.")]
            pub fn $close(&self) -> $crate::error::Result<()> {
                // SAFETY: plain handle; the library checks it.
                $crate::error::check(unsafe { $close_fn(self.raw) })
            }

            /// True while the handle is open.
            pub fn is_valid(&self) -> bool {
                // SAFETY: plain handle; cannot fail.
                unsafe { $valid_fn(self.raw) != 0 }
            }
        }

        impl $(<$lt>)? Drop for $name $(<$lt>)? {
            fn drop(&mut self) {
                if self.raw != ncore_sys::NCORE_NULL_HANDLE {
                    // SAFETY: closing is idempotent on any handle value.
                    unsafe { $close_fn(self.raw) };
                }
            }
        }
    };
}

pub(crate) use handle_type;
