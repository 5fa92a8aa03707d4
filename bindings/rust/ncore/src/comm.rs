//! Communicators: bootstrap, lifecycle and queries.

use ncore_sys as sys;

use crate::config::Config;
use crate::devcomm::GinType;
use crate::error::{check, invalid_argument, ErrorKind, Result};
use crate::handle::{handle_type, query};
use crate::stream::{raw_stream, Stream};
use crate::types::Backend;
use crate::unique_id::UniqueId;

/// Passing this color to [`Communicator::split`] leaves the rank out of every
/// new communicator (`NCORE_SPLIT_NOCOLOR`).
pub const SPLIT_NOCOLOR: i32 = sys::NCORE_SPLIT_NOCOLOR;

/// [`Communicator::shrink`] flags (`NCORE_SHRINK_*`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ShrinkFlags(pub u32);

impl ShrinkFlags {
    /// `NCORE_SHRINK_DEFAULT`.
    pub const DEFAULT: ShrinkFlags = ShrinkFlags(sys::NCORE_SHRINK_DEFAULT);
    /// `NCORE_SHRINK_ABORT`: abort the parent's outstanding operations first.
    pub const ABORT: ShrinkFlags = ShrinkFlags(sys::NCORE_SHRINK_ABORT);
}

handle_type! {
    /// A group of ranks that communicate (`ncore_comm_t`), owned: destroyed on
    /// drop, or explicitly with [`destroy`](Communicator::destroy) /
    /// [`abort`](Communicator::abort).
    ///
    /// Destroying releases every resource made from it (windows, registered
    /// buffers, custom operators, device communicators, symmetric memory); their
    /// Rust values then answer `ErrorKind::Closed`, never undefined behaviour,
    /// because handles are checked integers.
    ///
    /// `Send` but not `Sync`: calls on one communicator must be serialised (as in
    /// NCCL). To abort from another thread, use an [`AbortHandle`].
    pub struct Communicator;
    close: destroy = sys::ncore_comm_destroy,
        "Releases the communicator and every resource made from it (local).";
    is_valid: sys::ncore_comm_is_valid;
}

impl Communicator {
    /// Joins the job this program was started in
    /// (`ncore_comm_init_from_env`): rank, size and local rank from
    /// `ncore-run`, Open MPI, MPICH (PMI), Slurm or torchrun, rank 0's
    /// unique id through that launcher (PMIx, PMI-1, torchrun's store);
    /// with no launcher, a job of one rank. Collective like
    /// [`init_rank`](Communicator::init_rank). `InvalidArgument` names a
    /// malformed variable; `Unavailable` says what the launcher lacks.
    pub fn from_env(config: Option<&Config>) -> Result<Communicator> {
        let raw_config = config
            .map(|c| c.to_raw("ncore_comm_init_from_env"))
            .transpose()?;
        let mut out = 0;
        // SAFETY: out and the config are valid for the call.
        check(unsafe {
            sys::ncore_comm_init_from_env(
                &mut out,
                raw_config.as_ref().map_or(std::ptr::null(), |c| &c.raw),
            )
        })?;
        Ok(Communicator::from_raw(out))
    }

    /// Creates this rank's communicator (`ncore_comm_init_rank`). Collective:
    /// all `nranks` ranks call it with the same `id`. With a non-blocking
    /// config (`blocking(false)`, NCCL) it may return a communicator that is
    /// still initialising: poll [`async_error`](Communicator::async_error)
    /// until it reports no error before using it.
    pub fn init_rank(
        nranks: i32,
        id: &UniqueId,
        rank: i32,
        config: Option<&Config>,
    ) -> Result<Communicator> {
        let raw_config = config
            .map(|c| c.to_raw("ncore_comm_init_rank"))
            .transpose()?;
        let raw_id = id.to_raw();
        let mut out = 0;
        // SAFETY: all pointers are valid for the call; strings live in raw_config.
        check(unsafe {
            sys::ncore_comm_init_rank(
                &mut out,
                nranks,
                &raw_id,
                rank,
                raw_config.as_ref().map_or(std::ptr::null(), |c| &c.raw),
            )
        })?;
        Ok(Communicator::from_raw(out))
    }

    /// Creates `ndev` communicators in this process, one per rank
    /// (`ncore_comm_init_all`); drive them from one thread with groups.
    /// `devlist`: NCCL devices of the ranks (None = 0..ndev); host: None.
    pub fn init_all(
        ndev: i32,
        devlist: Option<&[i32]>,
        config: Option<&Config>,
    ) -> Result<Vec<Communicator>> {
        if let Some(list) = devlist {
            if (list.len() as i64) < ndev as i64 {
                return Err(invalid_argument(
                    "ncore_comm_init_all",
                    "devlist",
                    format!("holds {} devices for {ndev} ranks", list.len()),
                ));
            }
        }
        let raw_config = config
            .map(|c| c.to_raw("ncore_comm_init_all"))
            .transpose()?;
        let mut comms = vec![0u64; ndev.max(0) as usize];
        // SAFETY: comms holds ndev handles (ndev < 0 is rejected by the library
        // before it writes); devlist holds ndev entries.
        check(unsafe {
            sys::ncore_comm_init_all(
                comms.as_mut_ptr(),
                ndev,
                devlist.map_or(std::ptr::null(), |l| l.as_ptr()),
                raw_config.as_ref().map_or(std::ptr::null(), |c| &c.raw),
            )
        })?;
        Ok(comms.into_iter().map(Communicator::from_raw).collect())
    }

    /// Splits by `color` (or [`SPLIT_NOCOLOR`]), ordering new ranks by `key`
    /// then old rank (`ncore_comm_split`). Collective. `None` for NOCOLOR.
    /// `config`: None inherits the parent's.
    pub fn split(
        &self,
        color: i32,
        key: i32,
        config: Option<&Config>,
    ) -> Result<Option<Communicator>> {
        let raw_config = config.map(|c| c.to_raw("ncore_comm_split")).transpose()?;
        let mut out = 0;
        // SAFETY: out and the config are valid for the call.
        check(unsafe {
            sys::ncore_comm_split(
                self.raw,
                color,
                key,
                &mut out,
                raw_config.as_ref().map_or(std::ptr::null(), |c| &c.raw),
            )
        })?;
        Ok(if out == sys::NCORE_NULL_HANDLE {
            None
        } else {
            Some(Communicator::from_raw(out))
        })
    }

    /// A communicator of this one's ranks minus `exclude` (`ncore_comm_shrink`).
    /// Collective over the ranks that remain.
    pub fn shrink(
        &self,
        exclude: &[i32],
        config: Option<&Config>,
        flags: ShrinkFlags,
    ) -> Result<Communicator> {
        let raw_config = config.map(|c| c.to_raw("ncore_comm_shrink")).transpose()?;
        let count = i32::try_from(exclude.len()).map_err(|_| {
            invalid_argument(
                "ncore_comm_shrink",
                "exclude",
                format!("holds {} ranks, more than a C int counts", exclude.len()),
            )
        })?;
        let mut out = 0;
        // SAFETY: exclude holds exclude.len() ranks; out and config are valid.
        check(unsafe {
            sys::ncore_comm_shrink(
                self.raw,
                if exclude.is_empty() {
                    std::ptr::null()
                } else {
                    exclude.as_ptr()
                },
                count,
                &mut out,
                raw_config.as_ref().map_or(std::ptr::null(), |c| &c.raw),
                flags.0,
            )
        })?;
        Ok(Communicator::from_raw(out))
    }

    /// Flushes outstanding work and synchronises with the other ranks so the
    /// communicator can be destroyed without leaving a peer waiting
    /// (`ncore_comm_finalize`). Collective.
    pub fn finalize(&self) -> Result<()> {
        // SAFETY: plain handle.
        check(unsafe { sys::ncore_comm_finalize(self.raw) })
    }

    /// Waits until every operation enqueued on `stream` so far completed,
    /// failing instead of hanging when this communicator cannot complete
    /// them (`ncore_comm_synchronize`): `Remote` for a dead or aborted peer,
    /// `Timeout` past the configured timeout. On the host backend operations
    /// complete before they return, so only the asynchronous error is
    /// reported.
    pub fn synchronize(&self, stream: Option<&Stream>) -> Result<()> {
        // SAFETY: plain handle and stream.
        check(unsafe { sys::ncore_comm_synchronize(self.raw, raw_stream(stream)) })
    }

    /// Aborts (`ncore_comm_abort`): peers waiting on this rank get `Remote`,
    /// then everything is released as by [`destroy`](Self::destroy).
    pub fn abort(&self) -> Result<()> {
        // SAFETY: plain handle.
        check(unsafe { sys::ncore_comm_abort(self.raw) })
    }

    /// A handle that can abort this communicator from any thread, e.g. to
    /// unblock a call waiting on it.
    pub fn abort_handle(&self) -> AbortHandle {
        AbortHandle { raw: self.raw }
    }

    #[inline]
    fn query_int(
        &self,
        f: unsafe extern "C" fn(u64, *mut i32) -> sys::ncore_status_t,
    ) -> Result<i32> {
        // SAFETY: f is one of the library's int queries; out is valid.
        query(|out| unsafe { f(self.raw, out) })
    }

    /// This rank, in [0, size) (`ncclCommUserRank`).
    pub fn rank(&self) -> Result<i32> {
        self.query_int(sys::ncore_comm_rank)
    }

    /// Number of ranks (`ncclCommCount`).
    pub fn size(&self) -> Result<i32> {
        self.query_int(sys::ncore_comm_size)
    }

    /// CUDA device of this rank; -1 on the host backend.
    pub fn device(&self) -> Result<i32> {
        self.query_int(sys::ncore_comm_device)
    }

    /// This rank's index in its load/store-accessible (LSA) team.
    pub fn lsa_rank(&self) -> Result<i32> {
        self.query_int(sys::ncore_comm_lsa_rank)
    }

    /// Size of the LSA team (all ranks on the host backend).
    pub fn lsa_size(&self) -> Result<i32> {
        self.query_int(sys::ncore_comm_lsa_size)
    }

    /// The backend running the communicator (Host or Nccl).
    pub fn backend(&self) -> Result<Backend> {
        // SAFETY: out is valid for the call.
        let out = query(|out| unsafe { sys::ncore_comm_backend(self.raw, out) })?;
        Ok(Backend::from_raw(out).unwrap_or(Backend::Auto))
    }

    /// The asynchronous error (`ncclCommGetAsyncError`): `None` when all is
    /// well, `Some(InProgress)` while non-blocking work runs, or the error a
    /// background operation hit (e.g. `Remote` after a peer died).
    pub fn async_error(&self) -> Result<Option<ErrorKind>> {
        // SAFETY: out is valid for the call.
        let out = query(|out| unsafe { sys::ncore_comm_async_error(self.raw, out) })?;
        Ok(if out == sys::ncore_status_NCORE_OK {
            None
        } else {
            Some(ErrorKind::from_status(out))
        })
    }

    /// The communicator's GIN transport (None on the host backend).
    pub fn gin_type(&self) -> Result<GinType> {
        // SAFETY: out is valid for the call.
        query(|out| unsafe { sys::ncore_comm_gin_type(self.raw, out) }).map(GinType::from_raw)
    }

    /// The GIN transport of the rail team.
    pub fn railed_gin_type(&self) -> Result<GinType> {
        // SAFETY: out is valid for the call.
        query(|out| unsafe { sys::ncore_comm_railed_gin_type(self.raw, out) })
            .map(GinType::from_raw)
    }
}

/// Aborts a communicator from any thread (`ncore_comm_abort` is the one call
/// the C contract allows concurrently with others on the same communicator).
#[derive(Clone, Copy, Debug)]
pub struct AbortHandle {
    raw: u64,
}

impl AbortHandle {
    /// Aborts the communicator; a call blocked on it returns `Closed`.
    /// Idempotent; harmless after the communicator was destroyed.
    pub fn abort(&self) -> Result<()> {
        // SAFETY: plain handle; abort is thread-safe.
        check(unsafe { sys::ncore_comm_abort(self.raw) })
    }
}
