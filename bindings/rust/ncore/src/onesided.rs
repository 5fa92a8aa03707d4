//! One-sided communication: signal, wait_signal, put_signal (nccl.core
//! Communicator.signal / wait_signal / put_signal).
//!
//! Each signal or put_signal from rank s to rank d adds one to d's counter
//! for s; a wait for n signals from s consumes n. A put_signal's data is
//! visible to the waiter once the wait that consumes its signal completes.

use ncore_sys as sys;

use crate::buffer::{check_len, Buffer};
use crate::comm::Communicator;
use crate::error::{check, invalid_argument, Result};
use crate::group::check_not_in_scoped_group;
use crate::stream::{raw_stream, Stream};
use crate::versioned;
use crate::window::Window;

/// One wait request (nccl.core WaitSignalDesc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WaitSignalDesc {
    /// Rank whose signals to wait for.
    pub peer: i32,
    /// Number of signals to wait for (>= 1).
    pub op_count: u32,
    /// Signal index; reserved, must be 0.
    pub signal_index: i32,
    /// Context; reserved, must be 0.
    pub context: i32,
}

impl WaitSignalDesc {
    /// Waits for `op_count` signals from `peer`.
    pub fn new(peer: i32, op_count: u32) -> WaitSignalDesc {
        WaitSignalDesc {
            peer,
            op_count,
            signal_index: 0,
            context: 0,
        }
    }

    fn to_raw(self, struct_size: u32) -> Result<sys::ncore_wait_signal_desc_t> {
        let mut raw = versioned::defaults(sys::ncore_wait_signal_desc_init)?;
        raw.struct_size = struct_size;
        raw.peer = self.peer;
        raw.op_count = self.op_count;
        raw.signal_index = self.signal_index;
        raw.context = self.context;
        Ok(raw)
    }
}

/// The reserved arguments of signal and put_signal (nccl.core requires 0
/// for each; other values are rejected by the library).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SignalOptions {
    /// Signal index (must be 0).
    pub signal_index: i32,
    /// Context (must be 0).
    pub context: i32,
    /// Flags (must be 0).
    pub flags: u32,
}

/// Size of the C descriptor this binding was built with.
const DESC_SIZE: u32 = std::mem::size_of::<sys::ncore_wait_signal_desc_t>() as u32;

impl Communicator {
    /// Sends one signal to `peer`, ordered after earlier work on `stream`.
    pub fn signal(&self, peer: i32, stream: Option<&Stream>) -> Result<()> {
        self.signal_with(peer, SignalOptions::default(), stream)
    }

    /// [`signal`](Self::signal) with explicit reserved arguments.
    pub fn signal_with(
        &self,
        peer: i32,
        options: SignalOptions,
        stream: Option<&Stream>,
    ) -> Result<()> {
        // SAFETY: plain values.
        check(unsafe {
            sys::ncore_signal(
                self.as_raw(),
                peer,
                options.signal_index,
                options.context,
                options.flags,
                raw_stream(stream),
            )
        })
    }

    /// Waits until every descriptor's signals arrived (host backend: blocks;
    /// NCCL: later work on `stream` waits). An empty list is rejected by the
    /// library.
    pub fn wait_signal(&self, descs: &[WaitSignalDesc], stream: Option<&Stream>) -> Result<()> {
        self.wait_signal_versioned(descs, DESC_SIZE, stream)
    }

    /// [`wait_signal`](Self::wait_signal) declaring `struct_size` for the
    /// descriptors, as an older caller would (to exercise the library's
    /// versioning). Sizes larger than this binding's struct are refused.
    pub fn wait_signal_versioned(
        &self,
        descs: &[WaitSignalDesc],
        struct_size: u32,
        stream: Option<&Stream>,
    ) -> Result<()> {
        if struct_size > DESC_SIZE {
            return Err(invalid_argument(
                "ncore_wait_signal",
                "struct_size",
                format!("{struct_size} is larger than this binding's {DESC_SIZE}"),
            ));
        }
        // The library strides by struct_size; a smaller one still lies within
        // this array, which keeps every element of the full size.
        let raw = descs
            .iter()
            .map(|d| d.to_raw(struct_size))
            .collect::<Result<Vec<sys::ncore_wait_signal_desc_t>>>()?;
        let ptr = if raw.is_empty() {
            std::ptr::null()
        } else {
            raw.as_ptr()
        };
        // SAFETY: raw holds descs.len() descriptors for the call.
        check(unsafe { sys::ncore_wait_signal(self.as_raw(), ptr, raw.len(), raw_stream(stream)) })
    }

    /// Copies `count` elements of `buf` into `peer`'s part of `window` at
    /// element offset `window_offset`, then signals `peer` (`ncclPutSignal`).
    pub fn put_signal<B: Buffer + ?Sized>(
        &self,
        buf: &B,
        count: usize,
        peer: i32,
        window: &Window<'_>,
        window_offset: usize,
        stream: Option<&Stream>,
    ) -> Result<()> {
        self.put_signal_with(
            buf,
            count,
            peer,
            window,
            window_offset,
            SignalOptions::default(),
            stream,
        )
    }

    /// [`put_signal`](Self::put_signal) with explicit reserved arguments.
    #[allow(clippy::too_many_arguments)]
    pub fn put_signal_with<B: Buffer + ?Sized>(
        &self,
        buf: &B,
        count: usize,
        peer: i32,
        window: &Window<'_>,
        window_offset: usize,
        options: SignalOptions,
        stream: Option<&Stream>,
    ) -> Result<()> {
        check_not_in_scoped_group("ncore_put_signal")?;
        check_len("ncore_put_signal", "local_buf", buf, count)?;
        // SAFETY: buf holds count elements (checked) for the call; the
        // library checks that the put fits in the peer's part of the window.
        check(unsafe {
            sys::ncore_put_signal(
                self.as_raw(),
                buf.buffer_ptr(),
                count,
                buf.buffer_dtype().raw(),
                peer,
                window.as_raw(),
                window_offset,
                options.signal_index,
                options.context,
                options.flags,
                raw_stream(stream),
            )
        })
    }
}
