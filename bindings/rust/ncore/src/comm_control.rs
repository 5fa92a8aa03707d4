//! Communicator control (`ncore/comm_control.h`): properties, revoke, grow,
//! suspend / resume, memory statistics, scalable init. On NCCL each call
//! needs the NCCL release that introduced it; an older one answers
//! `ErrorKind::NotSupported` naming the version needed.

use ncore_sys as sys;

use crate::comm::Communicator;
use crate::config::Config;
use crate::devcomm::{GinConnectionType, GinType};
use crate::error::{check, invalid_argument, Result};
use crate::unique_id::UniqueId;

/// [`Communicator::suspend`] flags (`NCORE_SUSPEND_*`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct SuspendFlags(pub u32);

impl SuspendFlags {
    /// `NCORE_SUSPEND_MEM`: release the communicator's dynamic device memory.
    pub const MEM: SuspendFlags = SuspendFlags(sys::NCORE_SUSPEND_MEM);
}

/// What [`Communicator::mem_stat`] reports (`ncore_comm_mem_stat_t`); a
/// value outside the constants is passed through, and the library refuses it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct MemStat(pub u32);

impl MemStat {
    /// Bytes of device memory a suspend can release.
    pub const GPU_MEM_SUSPEND: MemStat =
        MemStat(sys::ncore_comm_mem_stat_NCORE_COMM_MEM_STAT_GPU_MEM_SUSPEND);
    /// 1 while suspended, else 0.
    pub const GPU_MEM_SUSPENDED: MemStat =
        MemStat(sys::ncore_comm_mem_stat_NCORE_COMM_MEM_STAT_GPU_MEM_SUSPENDED);
    /// Bytes kept while suspended.
    pub const GPU_MEM_PERSIST: MemStat =
        MemStat(sys::ncore_comm_mem_stat_NCORE_COMM_MEM_STAT_GPU_MEM_PERSIST);
    /// All bytes held.
    pub const GPU_MEM_TOTAL: MemStat =
        MemStat(sys::ncore_comm_mem_stat_NCORE_COMM_MEM_STAT_GPU_MEM_TOTAL);
}

/// What a communicator can do (`ncore_comm_properties_t`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommProperties {
    /// This rank.
    pub rank: i32,
    /// Number of ranks.
    pub nranks: i32,
    /// CUDA device ordinal; -1 on the host backend.
    pub cuda_device: i32,
    /// NVML index of the GPU; -1 on the host backend.
    pub nvml_device: i32,
    /// Device communicators work on this communicator.
    pub device_api_support: bool,
    /// The LSA team has NVLink multicast memory.
    pub multimem_support: bool,
    /// GIN transport.
    pub gin_type: GinType,
    /// GIN transport along rails.
    pub railed_gin_type: GinType,
    /// Number of LSA teams the communicator spans.
    pub n_lsa_teams: i32,
    /// One-sided calls reach peers outside the LSA team.
    pub host_rma_support: bool,
    /// The widest GIN connection a device communicator may ask for (NCCL
    /// 2.31+; `NONE` before, and on the host backend).
    pub gin_connection_type: GinConnectionType,
    /// Granularity of a custom GIN rank stride (NCCL 2.31+; 0 before).
    pub gin_min_stride: i32,
    /// NCCL 2.32+ CFT support over every rank: unicast logical endpoints,
    /// multicast ones, counted operations. `Some(false)` before 2.32 and on
    /// the host backend; `None` on 2.32, whose layout of them this ncore
    /// does not read yet.
    pub cft_support: Option<bool>,
    /// See `cft_support`.
    pub cft_multicast_support: Option<bool>,
    /// See `cft_support`.
    pub cft_counted_support: Option<bool>,
    /// A hash naming the communicator, equal on all its ranks (NCCL 2.31+,
    /// 0 before; the host backend makes one per communicator).
    pub comm_hash: u64,
    /// The available GIN types (NCCL 2.31+; empty before).
    pub available_gin_types: Vec<GinType>,
    /// Bytes of the running NCCL's device communicator struct (the loaded
    /// version's own before 2.31; 0 on the host backend).
    pub dev_comm_runtime_version_size: u64,
}

/// A 0 / 1 answer, or None for -1 (not read from this NCCL).
fn known(value: i32) -> Option<bool> {
    if value < 0 {
        None
    } else {
        Some(value != 0)
    }
}

impl Communicator {
    /// This communicator's properties (`ncore_comm_properties`).
    pub fn properties(&self) -> Result<CommProperties> {
        let mut raw = sys::ncore_comm_properties_t {
            struct_size: std::mem::size_of::<sys::ncore_comm_properties_t>() as u32,
            rank: 0,
            nranks: 0,
            cuda_device: -1,
            nvml_device: -1,
            device_api_support: 0,
            multimem_support: 0,
            gin_type: 0,
            railed_gin_type: 0,
            n_lsa_teams: 0,
            host_rma_support: 0,
            gin_connection_type: 0,
            gin_min_stride: 0,
            cft_support: 0,
            cft_multicast_support: 0,
            cft_counted_support: 0,
            comm_hash: 0,
            available_gin_types: 0,
            dev_comm_runtime_version_size: 0,
        };
        // SAFETY: raw is a full-size struct with struct_size set.
        check(unsafe { sys::ncore_comm_properties(self.as_raw(), &mut raw) })?;
        Ok(CommProperties {
            rank: raw.rank,
            nranks: raw.nranks,
            cuda_device: raw.cuda_device,
            nvml_device: raw.nvml_device,
            device_api_support: raw.device_api_support != 0,
            multimem_support: raw.multimem_support != 0,
            gin_type: GinType::from_raw(raw.gin_type as u32),
            railed_gin_type: GinType::from_raw(raw.railed_gin_type as u32),
            n_lsa_teams: raw.n_lsa_teams,
            host_rma_support: raw.host_rma_support != 0,
            gin_connection_type: GinConnectionType(raw.gin_connection_type),
            gin_min_stride: raw.gin_min_stride,
            cft_support: known(raw.cft_support),
            cft_multicast_support: known(raw.cft_multicast_support),
            cft_counted_support: known(raw.cft_counted_support),
            comm_hash: raw.comm_hash,
            available_gin_types: (0..64)
                .filter(|t| raw.available_gin_types >> t & 1 != 0)
                .map(GinType::from_raw)
                .collect(),
            dev_comm_runtime_version_size: raw.dev_comm_runtime_version_size,
        })
    }

    /// Revokes the communicator (`ncore_comm_revoke`, NCCL 2.28.7+): later
    /// communicating calls fail with `InvalidUsage`; queries, split, shrink,
    /// synchronize, abort and destroy remain.
    pub fn revoke(&self) -> Result<()> {
        // SAFETY: plain handle.
        check(unsafe { sys::ncore_comm_revoke(self.as_raw(), sys::NCORE_REVOKE_DEFAULT) })
    }

    /// The id new ranks join with in [`grow`](Communicator::grow)
    /// (`ncore_comm_get_unique_id`, NCCL 2.29.2+); one at a time.
    pub fn get_unique_id(&self) -> Result<UniqueId> {
        // SAFETY: zeroed plain data, written by the call.
        let mut raw: sys::ncore_unique_id_t = unsafe { std::mem::zeroed() };
        // SAFETY: raw is valid for the call.
        check(unsafe { sys::ncore_comm_get_unique_id(self.as_raw(), &mut raw) })?;
        Ok(UniqueId::from_raw(&raw))
    }

    /// An existing rank's part of a grow (`ncore_comm_grow`, NCCL 2.29.2+):
    /// `id` at the root (from [`get_unique_id`](Communicator::get_unique_id)),
    /// `None` elsewhere. Existing ranks keep their ranks.
    pub fn grow(
        &self,
        nranks: i32,
        id: Option<&UniqueId>,
        config: Option<&Config>,
    ) -> Result<Communicator> {
        grow_raw(self.as_raw(), nranks, id, -1, config)
    }

    /// A new rank's part of a grow: joins with the root's `id` as `rank`.
    pub fn join_grow(
        nranks: i32,
        id: &UniqueId,
        rank: i32,
        config: Option<&Config>,
    ) -> Result<Communicator> {
        grow_raw(sys::NCORE_NULL_HANDLE, nranks, Some(id), rank, config)
    }

    /// Suspends the communicator (`ncore_comm_suspend`, NCCL 2.29.7+).
    pub fn suspend(&self, flags: SuspendFlags) -> Result<()> {
        // SAFETY: plain handle.
        check(unsafe { sys::ncore_comm_suspend(self.as_raw(), flags.0) })
    }

    /// Resumes a suspended communicator (`ncore_comm_resume`).
    pub fn resume(&self) -> Result<()> {
        // SAFETY: plain handle.
        check(unsafe { sys::ncore_comm_resume(self.as_raw()) })
    }

    /// One memory statistic (`ncore_comm_mem_stat`, NCCL 2.29.7+).
    pub fn mem_stat(&self, stat: MemStat) -> Result<u64> {
        let mut out = 0u64;
        // SAFETY: out is valid for the call.
        check(unsafe { sys::ncore_comm_mem_stat(self.as_raw(), stat.0, &mut out) })?;
        Ok(out)
    }

    /// [`init_rank`](Communicator::init_rank) with several bootstrap roots
    /// (`ncore_comm_init_rank_scalable`): every rank passes the same ids.
    pub fn init_rank_scalable(
        nranks: i32,
        rank: i32,
        ids: &[UniqueId],
        config: Option<&Config>,
    ) -> Result<Communicator> {
        let raw_config = config
            .map(|c| c.to_raw("ncore_comm_init_rank_scalable"))
            .transpose()?;
        let raw_ids: Vec<sys::ncore_unique_id_t> = ids.iter().map(|i| i.to_raw()).collect();
        let count = i32::try_from(raw_ids.len()).map_err(|_| {
            invalid_argument(
                "ncore_comm_init_rank_scalable",
                "ids",
                "too many ids".into(),
            )
        })?;
        let mut out = 0;
        // SAFETY: raw_ids holds count ids; out and config are valid.
        check(unsafe {
            sys::ncore_comm_init_rank_scalable(
                &mut out,
                nranks,
                rank,
                count,
                if raw_ids.is_empty() {
                    std::ptr::null()
                } else {
                    raw_ids.as_ptr()
                },
                raw_config.as_ref().map_or(std::ptr::null(), |c| &c.raw),
            )
        })?;
        Ok(Communicator::from_raw(out))
    }
}

fn grow_raw(
    comm: sys::ncore_comm_t,
    nranks: i32,
    id: Option<&UniqueId>,
    rank: i32,
    config: Option<&Config>,
) -> Result<Communicator> {
    let raw_config = config.map(|c| c.to_raw("ncore_comm_grow")).transpose()?;
    let raw_id = id.map(|i| i.to_raw());
    let mut out = 0;
    // SAFETY: the id, out and config are valid for the call.
    check(unsafe {
        sys::ncore_comm_grow(
            comm,
            nranks,
            raw_id.as_ref().map_or(std::ptr::null(), |i| i as *const _),
            rank,
            &mut out,
            raw_config.as_ref().map_or(std::ptr::null(), |c| &c.raw),
        )
    })?;
    Ok(Communicator::from_raw(out))
}
