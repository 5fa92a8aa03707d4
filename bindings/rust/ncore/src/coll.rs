//! Collectives (allreduce, broadcast, reduce, allgather, reduce_scatter,
//! alltoall, gather, scatter), with in-place forms for the common cases.
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
use crate::error::{check, invalid_argument, Result};
use crate::group::check_not_in_scoped_group;
use crate::op_table;
use crate::stream::{raw_stream, Stream};
use crate::types::{DataType, RedOp};

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

    /// Checks `send` and `recv` for collective `op` of `count` (`root`'s, if
    /// it is rooted): the same element type, and each buffer as long as its
    /// row says where this rank uses it. Returns the element type (the
    /// receive buffer's where the send buffer is root's only).
    fn coll_buffers<S: Buffer + ?Sized, R: Buffer + ?Sized>(
        &self,
        op: &Collective,
        send: &S,
        recv: &R,
        count: usize,
        root: i32,
    ) -> Result<DataType> {
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
        Ok(if op.send.root_only {
            recv.buffer_dtype()
        } else {
            send.buffer_dtype()
        })
    }

    /// The element type and the (sendbuf, recvbuf) pointers of collective
    /// `op` run in place on `buf`, checked as long as the call needs: `buf`
    /// itself for both (SAME), or `buf` the nranks * count buffer and the
    /// other block `rank` of it (BLOCK).
    fn coll_in_place<B: BufferMut + ?Sized>(
        &self,
        op: &Collective,
        buf: &mut B,
        count: usize,
    ) -> Result<(DataType, *mut c_void, *mut c_void)> {
        let f = op.function;
        if op.in_place != InPlace::Block {
            // SAME; the library refuses the others.
            check_not_in_scoped_group(f)?;
            check_len(f, "recvbuf", buf, count)?;
            let ptr = buf.buffer_ptr_mut();
            return Ok((buf.buffer_dtype(), ptr, ptr));
        }
        let nranks = self.nranks_for(f)?;
        let whole = if op.send.per_rank {
            "sendbuf"
        } else {
            "recvbuf"
        };
        check_len(f, whole, buf, total(f, nranks, count)?)?;
        let dtype = buf.buffer_dtype();
        let ptr = buf.buffer_ptr_mut();
        let own = block(
            ptr,
            self.rank().unwrap_or(0).max(0) as usize * count,
            dtype.known_size(),
        );
        Ok(if op.send.per_rank {
            (dtype, ptr, own)
        } else {
            (dtype, own, ptr)
        })
    }

    /// `recv[i]` = `op` over ranks of `send[i]`, on every rank, for `count`
    /// elements (`ncore_allreduce`).
    pub fn allreduce<S: Buffer + ?Sized, R: BufferMut + ?Sized>(
        &self,
        send: &S,
        recv: &mut R,
        count: usize,
        op: RedOp,
        stream: Option<&Stream>,
    ) -> Result<()> {
        let dtype = self.coll_buffers(&op_table::ALLREDUCE, send, recv, count, 0)?;
        // SAFETY: both buffers hold count elements (checked); borrowed for the call.
        check(unsafe {
            sys::ncore_allreduce(
                self.as_raw(),
                send.buffer_ptr(),
                recv.buffer_ptr_mut(),
                count,
                dtype.raw(),
                op.raw(),
                raw_stream(stream),
            )
        })
    }

    /// In-place [`allreduce`](Self::allreduce): `buf` is both input and output.
    pub fn allreduce_in_place<B: BufferMut + ?Sized>(
        &self,
        buf: &mut B,
        count: usize,
        op: RedOp,
        stream: Option<&Stream>,
    ) -> Result<()> {
        let (dtype, send, recv) = self.coll_in_place(&op_table::ALLREDUCE, buf, count)?;
        // SAFETY: in place: sendbuf == recvbuf, count elements (checked).
        check(unsafe {
            sys::ncore_allreduce(
                self.as_raw(),
                send,
                recv,
                count,
                dtype.raw(),
                op.raw(),
                raw_stream(stream),
            )
        })
    }

    /// Copies root's `send` (`count` elements) into every rank's `recv`
    /// (`ncore_broadcast`); `send` is read on root only.
    pub fn broadcast<S: Buffer + ?Sized, R: BufferMut + ?Sized>(
        &self,
        send: &S,
        recv: &mut R,
        count: usize,
        root: i32,
        stream: Option<&Stream>,
    ) -> Result<()> {
        let dtype = self.coll_buffers(&op_table::BROADCAST, send, recv, count, root)?;
        // SAFETY: lengths checked; borrowed for the call.
        check(unsafe {
            sys::ncore_broadcast(
                self.as_raw(),
                send.buffer_ptr(),
                recv.buffer_ptr_mut(),
                count,
                dtype.raw(),
                root,
                raw_stream(stream),
            )
        })
    }

    /// In-place [`broadcast`](Self::broadcast).
    pub fn broadcast_in_place<B: BufferMut + ?Sized>(
        &self,
        buf: &mut B,
        count: usize,
        root: i32,
        stream: Option<&Stream>,
    ) -> Result<()> {
        let (dtype, send, recv) = self.coll_in_place(&op_table::BROADCAST, buf, count)?;
        // SAFETY: in place, count elements checked.
        check(unsafe {
            sys::ncore_broadcast(
                self.as_raw(),
                send,
                recv,
                count,
                dtype.raw(),
                root,
                raw_stream(stream),
            )
        })
    }

    /// Like allreduce, but only root's `recv` receives the result
    /// (`ncore_reduce`); `recv` is written on root only.
    pub fn reduce<S: Buffer + ?Sized, R: BufferMut + ?Sized>(
        &self,
        send: &S,
        recv: &mut R,
        count: usize,
        op: RedOp,
        root: i32,
        stream: Option<&Stream>,
    ) -> Result<()> {
        let dtype = self.coll_buffers(&op_table::REDUCE, send, recv, count, root)?;
        // SAFETY: lengths checked where the library uses the buffers.
        check(unsafe {
            sys::ncore_reduce(
                self.as_raw(),
                send.buffer_ptr(),
                recv.buffer_ptr_mut(),
                count,
                dtype.raw(),
                op.raw(),
                root,
                raw_stream(stream),
            )
        })
    }

    /// Every rank's `send` (`sendcount` elements) lands at `recv` +
    /// r * `sendcount` on every rank (`ncore_allgather`).
    pub fn allgather<S: Buffer + ?Sized, R: BufferMut + ?Sized>(
        &self,
        send: &S,
        recv: &mut R,
        sendcount: usize,
        stream: Option<&Stream>,
    ) -> Result<()> {
        let dtype = self.coll_buffers(&op_table::ALLGATHER, send, recv, sendcount, 0)?;
        // SAFETY: lengths checked.
        check(unsafe {
            sys::ncore_allgather(
                self.as_raw(),
                send.buffer_ptr(),
                recv.buffer_ptr_mut(),
                sendcount,
                dtype.raw(),
                raw_stream(stream),
            )
        })
    }

    /// In-place [`allgather`](Self::allgather): this rank's block already sits
    /// at `buf` + rank * `sendcount`.
    pub fn allgather_in_place<B: BufferMut + ?Sized>(
        &self,
        buf: &mut B,
        sendcount: usize,
        stream: Option<&Stream>,
    ) -> Result<()> {
        let (dtype, send, recv) = self.coll_in_place(&op_table::ALLGATHER, buf, sendcount)?;
        // SAFETY: the send block lies inside buf (length checked).
        check(unsafe {
            sys::ncore_allgather(
                self.as_raw(),
                send,
                recv,
                sendcount,
                dtype.raw(),
                raw_stream(stream),
            )
        })
    }

    /// Reduces nranks * `recvcount` elements of `send`; rank r receives block
    /// r in `recv` (`ncore_reduce_scatter`).
    pub fn reduce_scatter<S: Buffer + ?Sized, R: BufferMut + ?Sized>(
        &self,
        send: &S,
        recv: &mut R,
        recvcount: usize,
        op: RedOp,
        stream: Option<&Stream>,
    ) -> Result<()> {
        let dtype = self.coll_buffers(&op_table::REDUCE_SCATTER, send, recv, recvcount, 0)?;
        // SAFETY: lengths checked.
        check(unsafe {
            sys::ncore_reduce_scatter(
                self.as_raw(),
                send.buffer_ptr(),
                recv.buffer_ptr_mut(),
                recvcount,
                dtype.raw(),
                op.raw(),
                raw_stream(stream),
            )
        })
    }

    /// In-place [`reduce_scatter`](Self::reduce_scatter): the result lands at
    /// `buf` + rank * `recvcount`.
    pub fn reduce_scatter_in_place<B: BufferMut + ?Sized>(
        &self,
        buf: &mut B,
        recvcount: usize,
        op: RedOp,
        stream: Option<&Stream>,
    ) -> Result<()> {
        let (dtype, send, recv) = self.coll_in_place(&op_table::REDUCE_SCATTER, buf, recvcount)?;
        // SAFETY: the receive block lies inside buf (length checked).
        check(unsafe {
            sys::ncore_reduce_scatter(
                self.as_raw(),
                send,
                recv,
                recvcount,
                dtype.raw(),
                op.raw(),
                raw_stream(stream),
            )
        })
    }

    /// Block j (`count` elements) of `send` goes to rank j, landing at `recv`
    /// + i * `count` there, where i is the sender (`ncore_alltoall`).
    pub fn alltoall<S: Buffer + ?Sized, R: BufferMut + ?Sized>(
        &self,
        send: &S,
        recv: &mut R,
        count: usize,
        stream: Option<&Stream>,
    ) -> Result<()> {
        let dtype = self.coll_buffers(&op_table::ALLTOALL, send, recv, count, 0)?;
        // SAFETY: lengths checked.
        check(unsafe {
            sys::ncore_alltoall(
                self.as_raw(),
                send.buffer_ptr(),
                recv.buffer_ptr_mut(),
                count,
                dtype.raw(),
                raw_stream(stream),
            )
        })
    }

    /// Every rank's `send` (`count` elements) lands at `recv` + r * `count` on
    /// root (`ncore_gather`); `recv` is written on root only.
    pub fn gather<S: Buffer + ?Sized, R: BufferMut + ?Sized>(
        &self,
        send: &S,
        recv: &mut R,
        count: usize,
        root: i32,
        stream: Option<&Stream>,
    ) -> Result<()> {
        let dtype = self.coll_buffers(&op_table::GATHER, send, recv, count, root)?;
        // SAFETY: lengths checked where the library uses the buffers.
        check(unsafe {
            sys::ncore_gather(
                self.as_raw(),
                send.buffer_ptr(),
                recv.buffer_ptr_mut(),
                count,
                dtype.raw(),
                root,
                raw_stream(stream),
            )
        })
    }

    /// Block r (`count` elements) of root's `send` lands in rank r's `recv`
    /// (`ncore_scatter`); `send` is read on root only.
    pub fn scatter<S: Buffer + ?Sized, R: BufferMut + ?Sized>(
        &self,
        send: &S,
        recv: &mut R,
        count: usize,
        root: i32,
        stream: Option<&Stream>,
    ) -> Result<()> {
        let dtype = self.coll_buffers(&op_table::SCATTER, send, recv, count, root)?;
        // SAFETY: lengths checked where the library uses the buffers.
        check(unsafe {
            sys::ncore_scatter(
                self.as_raw(),
                send.buffer_ptr(),
                recv.buffer_ptr_mut(),
                count,
                dtype.raw(),
                root,
                raw_stream(stream),
            )
        })
    }
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
