//! Groups (`ncore_group_start` / `ncore_group_end`): calls made by this
//! thread in between are only queued, and run together at the outermost end.
//!
//! Because a queued call reads and writes its buffers at the end of the
//! group, the buffers must outlive the group. [`group`] enforces that with a
//! lifetime: inside it, send and receive through the [`Group`] scope, whose
//! buffers must be borrowed from outside the closure. The raw
//! [`group_start`] is `unsafe` for the same reason.

use std::cell::Cell;
use std::marker::PhantomData;

use ncore_sys as sys;

use crate::buffer::{Buffer, BufferMut};
use crate::comm::Communicator;
use crate::error::{check, Result};
use crate::stream::Stream;

/// Starts a group (`ncclGroupStart`). Groups nest.
///
/// # Safety
/// Every buffer passed to an ncore call before the matching [`group_end`]
/// must stay alive, and not be accessed otherwise, until that end returns.
pub unsafe fn group_start() -> Result<()> {
    check(sys::ncore_group_start())
}

/// Ends a group (`ncclGroupEnd`); at the outermost end the queued calls run,
/// and the first failure among them is returned. `InvalidUsage` without a
/// matching start.
pub fn group_end() -> Result<()> {
    // SAFETY: no arguments.
    check(unsafe { sys::ncore_group_end() })
}

/// The scope of a [`group`]: queues sends and receives whose buffers live
/// at least as long as `'buf`, which outlasts the group.
#[derive(Debug)]
pub struct Group<'buf> {
    _buffers: PhantomData<&'buf mut ()>,
}

impl<'buf> Group<'buf> {
    /// Queues [`Communicator::send`].
    pub fn send<B: Buffer + ?Sized>(
        &self,
        comm: &Communicator,
        buf: &'buf B,
        count: usize,
        peer: i32,
        stream: Option<&Stream>,
    ) -> Result<()> {
        comm.send_queued(buf, count, peer, stream)
    }

    /// Queues [`Communicator::recv`].
    pub fn recv<B: BufferMut + ?Sized>(
        &self,
        comm: &Communicator,
        buf: &'buf mut B,
        count: usize,
        peer: i32,
        stream: Option<&Stream>,
    ) -> Result<()> {
        comm.recv_queued(buf, count, peer, stream)
    }
}

/// Runs `body` inside a group and ends it, even when `body` fails (the
/// body's error wins over the end's).
///
/// ```no_run
/// # fn f(comm: &ncore::Communicator, a: &[f32], b: &mut [f32]) -> ncore::Result<()> {
/// ncore::group(|g| {
///     g.send(comm, a, a.len(), 1, None)?;
///     g.recv(comm, b, 4, 1, None)
/// })
/// # }
/// ```
pub fn group<'buf, R>(body: impl FnOnce(&Group<'buf>) -> Result<R>) -> Result<R> {
    // SAFETY: the only ncore calls with buffers that body can queue go through
    // the Group, whose buffers are borrowed for 'buf, beyond this function.
    unsafe { group_start()? };
    SCOPED_DEPTH.with(|d| d.set(d.get() + 1));
    let result = body(&Group {
        _buffers: PhantomData,
    });
    SCOPED_DEPTH.with(|d| d.set(d.get() - 1));
    let end = group_end();
    let value = result?;
    end?;
    Ok(value)
}

thread_local! {
    /// How many [`group`] calls this thread is inside.
    static SCOPED_DEPTH: Cell<u32> = const { Cell::new(0) };
}

/// Refuses a buffer-taking call made directly on a communicator inside
/// [`group`]: it would be queued with a buffer that may not outlive the
/// group. Such calls must go through the [`Group`] scope.
pub(crate) fn check_not_in_scoped_group(function: &str) -> Result<()> {
    if SCOPED_DEPTH.with(Cell::get) > 0 {
        return Err(crate::error::Error::new(
            crate::error::ErrorKind::InvalidUsage,
            format!("{function}: called inside ncore::group; queue it through the Group scope so its buffers outlive the group"),
        ));
    }
    Ok(())
}
