//! What the collectives share: their methods, one per row of the table of
//! operations with its `_in_place` twin where the row runs in place, are
//! `coll_gen.rs`'s (written by `tools/gen-op-table.py`), each a call of
//! [`coll_args`](Communicator::coll_args) or
//! [`coll_in_place_args`](Communicator::coll_in_place_args) and then of C.
//!
//! Every rank calls the same collectives in the same order with matching
//! counts, types, operator and root. The element type comes from the
//! buffers, which must agree. The binding checks that host buffers are long
//! enough before the library touches them; `DeviceSlice` views are checked
//! against the length they were made with. What each buffer must hold, and
//! where, is the collective's row of the table of operations
//! (`core/op_table.h`, copied into `op_table.rs` by `tools/gen-op-table.py`);
//! everything else is checked by the library.

use std::ffi::c_void;

use ncore_sys as sys;

use crate::buffer::{check_len, check_same_dtype, Buffer, BufferMut};
use crate::comm::Communicator;
use crate::error::{invalid_argument, Result};
use crate::group::check_not_in_scoped_group;
use crate::stream::{raw_stream, Stream};
use crate::types::DataType;

/// What one buffer of a collective holds and where it is used (a buffer
/// column of the table of operations).
#[derive(Clone, Copy)]
pub(crate) struct Part {
    /// Holds nranks * count elements, else count.
    pub(crate) per_rank: bool,
    /// Used on root only: not looked at elsewhere.
    pub(crate) root_only: bool,
}

/// How a collective runs in place.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum InPlace {
    /// sendbuf == recvbuf.
    Same,
    /// The count buffer is block `rank` of the nranks * count one.
    Block,
    /// The library refuses sendbuf == recvbuf.
    Refused,
}

/// One collective's row of the table of operations (`op_table.rs`).
pub(crate) struct Collective {
    /// Its C function, for messages.
    pub(crate) function: &'static str,
    /// What sendbuf holds.
    pub(crate) send: Part,
    /// What recvbuf holds.
    pub(crate) recv: Part,
    /// How it runs in place.
    pub(crate) in_place: InPlace,
}

/// A buffer column (for `op_table.rs`).
pub(crate) const fn part(per_rank: bool, root_only: bool) -> Part {
    Part {
        per_rank,
        root_only,
    }
}

/// A row (for `op_table.rs`).
pub(crate) const fn row(
    function: &'static str,
    send: Part,
    recv: Part,
    in_place: InPlace,
) -> Collective {
    Collective {
        function,
        send,
        recv,
        in_place,
    }
}

impl Communicator {
    /// The rank count for length checks; 0 when the query fails (a closed
    /// or invalid handle), which skips the checks: the collective then fails
    /// in the library without touching memory, with the library's message.
    fn nranks_for(&self, function: &str) -> Result<usize> {
        check_not_in_scoped_group(function)?;
        Ok(self.size().map_or(0, |n| n.max(0) as usize))
    }

    /// Whether this rank is `root`; false when the query fails (see above).
    fn is_root(&self, root: i32) -> Result<bool> {
        Ok(self.rank().is_ok_and(|r| r == root))
    }

    /// The C arguments of collective `op` of `count` (`root`'s, if it is
    /// rooted) on `send` and `recv`, checked: the same element type, each
    /// buffer as long as its row says where this rank uses it, and no open
    /// scoped group. The element type is the receive buffer's where the
    /// send buffer is root's only.
    pub(crate) fn coll_args<S: Buffer + ?Sized, R: BufferMut + ?Sized>(
        &self,
        op: &Collective,
        send: &S,
        recv: &mut R,
        count: usize,
        root: i32,
        stream: Option<&Stream>,
    ) -> Result<CollArgs> {
        let f = op.function;
        let nranks = if op.send.per_rank || op.recv.per_rank {
            self.nranks_for(f)?
        } else {
            check_not_in_scoped_group(f)?;
            0
        };
        check_same_dtype(f, send, recv)?;
        let on_root = (op.send.root_only || op.recv.root_only) && self.is_root(root)?;
        if !op.send.root_only || on_root {
            check_len(f, "sendbuf", send, elements(f, op.send, nranks, count)?)?;
        }
        if !op.recv.root_only || on_root {
            check_len(f, "recvbuf", recv, elements(f, op.recv, nranks, count)?)?;
        }
        let dtype = if op.send.root_only {
            recv.buffer_dtype()
        } else {
            send.buffer_dtype()
        };
        Ok(self.c_args(dtype, send.buffer_ptr(), recv.buffer_ptr_mut(), stream))
    }

    /// The C arguments of collective `op` run in place on `buf` (`root`'s
    /// where it is rooted), checked as long as the call needs: `buf` itself
    /// for both (SAME), or `buf` the nranks * count buffer and the other
    /// block `rank` of it (BLOCK); off the root of a BLOCK row whose nranks
    /// * count buffer is root's only, `buf` is the count buffer and the
    /// other is NULL (not used there).
    pub(crate) fn coll_in_place_args<B: BufferMut + ?Sized>(
        &self,
        op: &Collective,
        buf: &mut B,
        count: usize,
        root: i32,
        stream: Option<&Stream>,
    ) -> Result<CollArgs> {
        let f = op.function;
        let dtype = buf.buffer_dtype();
        let (whole, own) = if op.send.per_rank {
            (op.send, "recvbuf")
        } else {
            (op.recv, "sendbuf")
        };
        if op.in_place != InPlace::Block || (whole.root_only && !self.is_root(root)?) {
            // SAME (the library refuses the others), or the count buffer
            // alone off the root.
            check_not_in_scoped_group(f)?;
            let name = if op.in_place == InPlace::Block {
                own
            } else {
                "recvbuf"
            };
            check_len(f, name, buf, count)?;
            let ptr = buf.buffer_ptr_mut();
            let unused = std::ptr::null_mut();
            return Ok(match op.in_place {
                InPlace::Block if op.send.per_rank => self.c_args(dtype, unused, ptr, stream),
                InPlace::Block => self.c_args(dtype, ptr, unused, stream),
                _ => self.c_args(dtype, ptr, ptr, stream),
            });
        }
        let nranks = self.nranks_for(f)?;
        let whole_name = if op.send.per_rank {
            "sendbuf"
        } else {
            "recvbuf"
        };
        check_len(f, whole_name, buf, total(f, nranks, count)?)?;
        let ptr = buf.buffer_ptr_mut();
        let own = block(
            ptr,
            self.rank().unwrap_or(0).max(0) as usize * count,
            dtype.known_size(),
        );
        Ok(if op.send.per_rank {
            self.c_args(dtype, ptr, own, stream)
        } else {
            self.c_args(dtype, own, ptr, stream)
        })
    }

    /// The arguments every collective's C call takes besides its count, op
    /// and root.
    fn c_args(
        &self,
        dtype: DataType,
        send: *const c_void,
        recv: *mut c_void,
        stream: Option<&Stream>,
    ) -> CollArgs {
        CollArgs {
            comm: self.as_raw(),
            send,
            recv,
            dtype: dtype.raw(),
            stream: raw_stream(stream),
        }
    }
}

/// A collective's C arguments besides its count, op and root, checked
/// against its row ([`Communicator::coll_args`]); the pointers borrow the
/// buffers the method borrows, for the call.
pub(crate) struct CollArgs {
    pub(crate) comm: sys::ncore_comm_t,
    pub(crate) send: *const c_void,
    pub(crate) recv: *mut c_void,
    pub(crate) dtype: sys::ncore_dtype_t,
    pub(crate) stream: sys::ncore_stream_t,
}

/// The elements `part` holds for `count`: count, or nranks * count (an
/// error when that overflows).
fn elements(function: &str, part: Part, nranks: usize, count: usize) -> Result<usize> {
    if part.per_rank {
        total(function, nranks, count)
    } else {
        Ok(count)
    }
}

/// nranks * count, or an error when it overflows.
fn total(function: &str, nranks: usize, count: usize) -> Result<usize> {
    nranks.checked_mul(count).ok_or_else(|| {
        invalid_argument(
            function,
            "count",
            format!("{count} x {nranks} ranks overflows"),
        )
    })
}

/// Address of element `index` from `ptr` (unknown element sizes: bytes).
fn block(ptr: *mut c_void, index: usize, elem: Option<usize>) -> *mut c_void {
    if ptr.is_null() {
        return ptr;
    }
    ptr.cast::<u8>()
        .wrapping_add(index * elem.unwrap_or(1))
        .cast()
}
