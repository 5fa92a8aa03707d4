//! Point-to-point: send and recv (`ncclSend` / `ncclRecv`).
//!
//! Outside a group both calls may block until the peer takes part, so a
//! rank that sends and receives puts them in [`group`](crate::group).

use ncore_sys as sys;

use crate::buffer::{check_len, Buffer, BufferMut};
use crate::comm::Communicator;
use crate::error::{check, Result};
use crate::group::check_not_in_scoped_group;
use crate::stream::{raw_stream, Stream};

impl Communicator {
    /// Sends `count` elements of `buf` to rank `peer` (`ncore_send`).
    /// A matching [`recv`](Self::recv) of the same byte size must run on the peer.
    pub fn send<B: Buffer + ?Sized>(
        &self,
        buf: &B,
        count: usize,
        peer: i32,
        stream: Option<&Stream>,
    ) -> Result<()> {
        check_not_in_scoped_group("ncore_send")?;
        self.send_queued(buf, count, peer, stream)
    }

    /// Receives `count` elements from rank `peer` into `buf` (`ncore_recv`).
    pub fn recv<B: BufferMut + ?Sized>(
        &self,
        buf: &mut B,
        count: usize,
        peer: i32,
        stream: Option<&Stream>,
    ) -> Result<()> {
        check_not_in_scoped_group("ncore_recv")?;
        self.recv_queued(buf, count, peer, stream)
    }

    pub(crate) fn send_queued<B: Buffer + ?Sized>(
        &self,
        buf: &B,
        count: usize,
        peer: i32,
        stream: Option<&Stream>,
    ) -> Result<()> {
        check_len("ncore_send", "buf", buf, count)?;
        // SAFETY: buf holds count elements (checked) and is borrowed until the
        // call, or the group it is queued in, completes.
        check(unsafe {
            sys::ncore_send(
                self.as_raw(),
                buf.buffer_ptr(),
                count,
                buf.buffer_dtype().raw(),
                peer,
                raw_stream(stream),
            )
        })
    }

    pub(crate) fn recv_queued<B: BufferMut + ?Sized>(
        &self,
        buf: &mut B,
        count: usize,
        peer: i32,
        stream: Option<&Stream>,
    ) -> Result<()> {
        check_len("ncore_recv", "buf", buf, count)?;
        let dtype = buf.buffer_dtype().raw();
        // SAFETY: as send; buf is writable.
        check(unsafe {
            sys::ncore_recv(
                self.as_raw(),
                buf.buffer_ptr_mut(),
                count,
                dtype,
                peer,
                raw_stream(stream),
            )
        })
    }
}
