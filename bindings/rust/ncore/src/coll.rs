//! Collectives (allreduce, broadcast, reduce, allgather, reduce_scatter,
//! alltoall, gather, scatter), with in-place forms for the common cases.
//!
//! Every rank calls the same collectives in the same order with matching
//! counts, types, operator and root. The element type comes from the
//! buffers, which must agree. The binding checks that host buffers are long
//! enough before the library touches them; `DeviceSlice` views are checked
//! against the length they were made with.

use std::ffi::c_void;

use ncore_sys as sys;

use crate::buffer::{check_len, check_same_dtype, Buffer, BufferMut};
use crate::comm::Communicator;
use crate::error::{check, invalid_argument, Result};
use crate::group::check_not_in_scoped_group;
use crate::stream::{raw_stream, Stream};
use crate::types::RedOp;

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
        const F: &str = "ncore_allreduce";
        check_not_in_scoped_group(F)?;
        check_same_dtype(F, send, recv)?;
        check_len(F, "sendbuf", send, count)?;
        check_len(F, "recvbuf", recv, count)?;
        let dtype = send.buffer_dtype().raw();
        // SAFETY: both buffers hold count elements (checked); borrowed for the call.
        check(unsafe {
            sys::ncore_allreduce(
                self.as_raw(),
                send.buffer_ptr(),
                recv.buffer_ptr_mut(),
                count,
                dtype,
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
        const F: &str = "ncore_allreduce";
        check_not_in_scoped_group(F)?;
        check_len(F, "recvbuf", buf, count)?;
        let dtype = buf.buffer_dtype().raw();
        let ptr = buf.buffer_ptr_mut();
        // SAFETY: in place: sendbuf == recvbuf, count elements (checked).
        check(unsafe {
            sys::ncore_allreduce(
                self.as_raw(),
                ptr,
                ptr,
                count,
                dtype,
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
        const F: &str = "ncore_broadcast";
        check_not_in_scoped_group(F)?;
        check_same_dtype(F, send, recv)?;
        if self.is_root(root)? {
            check_len(F, "sendbuf", send, count)?;
        }
        check_len(F, "recvbuf", recv, count)?;
        let dtype = recv.buffer_dtype().raw();
        // SAFETY: lengths checked; borrowed for the call.
        check(unsafe {
            sys::ncore_broadcast(
                self.as_raw(),
                send.buffer_ptr(),
                recv.buffer_ptr_mut(),
                count,
                dtype,
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
        const F: &str = "ncore_broadcast";
        check_not_in_scoped_group(F)?;
        check_len(F, "recvbuf", buf, count)?;
        let dtype = buf.buffer_dtype().raw();
        let ptr = buf.buffer_ptr_mut();
        // SAFETY: in place, count elements checked.
        check(unsafe {
            sys::ncore_broadcast(
                self.as_raw(),
                ptr,
                ptr,
                count,
                dtype,
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
        const F: &str = "ncore_reduce";
        check_not_in_scoped_group(F)?;
        check_same_dtype(F, send, recv)?;
        check_len(F, "sendbuf", send, count)?;
        if self.is_root(root)? {
            check_len(F, "recvbuf", recv, count)?;
        }
        let dtype = send.buffer_dtype().raw();
        // SAFETY: lengths checked where the library uses the buffers.
        check(unsafe {
            sys::ncore_reduce(
                self.as_raw(),
                send.buffer_ptr(),
                recv.buffer_ptr_mut(),
                count,
                dtype,
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
        const F: &str = "ncore_allgather";
        let nranks = self.nranks_for(F)?;
        check_same_dtype(F, send, recv)?;
        check_len(F, "sendbuf", send, sendcount)?;
        check_len(F, "recvbuf", recv, total(F, nranks, sendcount)?)?;
        let dtype = send.buffer_dtype().raw();
        // SAFETY: lengths checked.
        check(unsafe {
            sys::ncore_allgather(
                self.as_raw(),
                send.buffer_ptr(),
                recv.buffer_ptr_mut(),
                sendcount,
                dtype,
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
        const F: &str = "ncore_allgather";
        let nranks = self.nranks_for(F)?;
        check_len(F, "recvbuf", buf, total(F, nranks, sendcount)?)?;
        let dtype = buf.buffer_dtype();
        let ptr = buf.buffer_ptr_mut();
        let send = block(
            ptr,
            self.rank().unwrap_or(0).max(0) as usize * sendcount,
            dtype.known_size(),
        );
        // SAFETY: the send block lies inside buf (length checked).
        check(unsafe {
            sys::ncore_allgather(
                self.as_raw(),
                send,
                ptr,
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
        const F: &str = "ncore_reduce_scatter";
        let nranks = self.nranks_for(F)?;
        check_same_dtype(F, send, recv)?;
        check_len(F, "sendbuf", send, total(F, nranks, recvcount)?)?;
        check_len(F, "recvbuf", recv, recvcount)?;
        let dtype = send.buffer_dtype().raw();
        // SAFETY: lengths checked.
        check(unsafe {
            sys::ncore_reduce_scatter(
                self.as_raw(),
                send.buffer_ptr(),
                recv.buffer_ptr_mut(),
                recvcount,
                dtype,
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
        const F: &str = "ncore_reduce_scatter";
        let nranks = self.nranks_for(F)?;
        check_len(F, "sendbuf", buf, total(F, nranks, recvcount)?)?;
        let dtype = buf.buffer_dtype();
        let ptr = buf.buffer_ptr_mut();
        let recv = block(
            ptr,
            self.rank().unwrap_or(0).max(0) as usize * recvcount,
            dtype.known_size(),
        );
        // SAFETY: the receive block lies inside buf (length checked).
        check(unsafe {
            sys::ncore_reduce_scatter(
                self.as_raw(),
                ptr,
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
        const F: &str = "ncore_alltoall";
        let nranks = self.nranks_for(F)?;
        check_same_dtype(F, send, recv)?;
        check_len(F, "sendbuf", send, total(F, nranks, count)?)?;
        check_len(F, "recvbuf", recv, total(F, nranks, count)?)?;
        let dtype = send.buffer_dtype().raw();
        // SAFETY: lengths checked.
        check(unsafe {
            sys::ncore_alltoall(
                self.as_raw(),
                send.buffer_ptr(),
                recv.buffer_ptr_mut(),
                count,
                dtype,
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
        const F: &str = "ncore_gather";
        let nranks = self.nranks_for(F)?;
        check_same_dtype(F, send, recv)?;
        check_len(F, "sendbuf", send, count)?;
        if self.is_root(root)? {
            check_len(F, "recvbuf", recv, total(F, nranks, count)?)?;
        }
        let dtype = send.buffer_dtype().raw();
        // SAFETY: lengths checked where the library uses the buffers.
        check(unsafe {
            sys::ncore_gather(
                self.as_raw(),
                send.buffer_ptr(),
                recv.buffer_ptr_mut(),
                count,
                dtype,
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
        const F: &str = "ncore_scatter";
        let nranks = self.nranks_for(F)?;
        check_same_dtype(F, send, recv)?;
        if self.is_root(root)? {
            check_len(F, "sendbuf", send, total(F, nranks, count)?)?;
        }
        check_len(F, "recvbuf", recv, count)?;
        let dtype = recv.buffer_dtype().raw();
        // SAFETY: lengths checked where the library uses the buffers.
        check(unsafe {
            sys::ncore_scatter(
                self.as_raw(),
                send.buffer_ptr(),
                recv.buffer_ptr_mut(),
                count,
                dtype,
                root,
                raw_stream(stream),
            )
        })
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
