//! Steps about communicators and resources: queries, creation, close,
//! is_valid, lifecycle, memory — each through the ncore crate's public API.
//! Handles are wrapped from their raw values for each call and never dropped
//! here (`ManuallyDrop`): closing is what the plan's steps decide.

use std::mem::ManuallyDrop;

use ncore::{
    Communicator, Config, CustomRedOp, DataType, DevComm, DevCommRequirements, DeviceMemory,
    ErrorKind, GinConnectionType, RegisteredBuffer, ResourceHandle, ResourceRequirement,
    ScalarResidence, ShrinkFlags, SymmetricMemory, Team, TeamRequirement, Window, WindowFlags,
};

use crate::json::Value;
use crate::objects::{Kind, Object};
use crate::ops_data::{comm_arg, dtype_arg};
use crate::plan::{object_field, parse_int, Step};
use crate::{Runner, StepResult};

fn int(v: impl TryInto<i64>) -> StepResult {
    Ok(Value::Int(v.try_into().unwrap_or(i64::MAX)))
}

fn what(step: &Step) -> &str {
    step.arg("what").unwrap_or("")
}

/// A CFT property as C reports it: 1, 0, or -1 when not read (None).
fn answer(value: Option<bool>) -> i32 {
    value.map_or(-1, i32::from)
}

fn internal() -> StepResult {
    Err(ncore::Error::new(ncore::ErrorKind::Internal, ""))
}

/// `comm_query`.
pub fn comm_query(r: &mut Runner, step: &Step) -> StepResult {
    let comm = comm_arg(r, step);
    match what(step) {
        "rank" => int(comm.rank()?),
        "size" => int(comm.size()?),
        "device" => int(comm.device()?),
        "lsa_rank" => int(comm.lsa_rank()?),
        "lsa_size" => int(comm.lsa_size()?),
        "backend" => int(comm.backend()?.raw()),
        "async_error" => int(comm.async_error()?.map_or(0, |k| k.status())),
        "gin_type" => int(comm.gin_type()?.0),
        "railed_gin_type" => int(comm.railed_gin_type()?.0),
        other => {
            let p = comm.properties()?;
            match other {
                "nvml_device" => int(p.nvml_device),
                "device_api_support" => int(p.device_api_support as i32),
                "multimem_support" => int(p.multimem_support as i32),
                "n_lsa_teams" => int(p.n_lsa_teams),
                "host_rma_support" => int(p.host_rma_support as i32),
                "gin_connection_type" => int(p.gin_connection_type.0),
                "gin_min_stride" => int(p.gin_min_stride),
                "available_gin_types" => {
                    int(p.available_gin_types.iter().fold(0u64, |m, t| m | 1 << t.0) as i64)
                }
                "dev_comm_runtime_version_size" => int(p.dev_comm_runtime_version_size as i64),
                "cft_support" => int(answer(p.cft_support)),
                "cft_multicast_support" => int(answer(p.cft_multicast_support)),
                "cft_counted_support" => int(answer(p.cft_counted_support)),
                _ => internal(),
            }
        }
    }
}

/// `team`: the world / lsa / rail team, or the one the step gives
/// (`given`: n_ranks, rank, stride); `what` reads a field or converts
/// `team_rank` (to_world, to_lsa).
pub fn team(r: &mut Runner, step: &Step) -> StepResult {
    let comm = comm_arg(r, step);
    let team = match step.arg("team").unwrap_or("") {
        "world" => comm.team_world()?,
        "lsa" => comm.team_lsa()?,
        "rail" => comm.team_rail()?,
        "cft" => comm.team_cft(ncore::CftTeamMode(step.int("mode", 0) as i32))?,
        "cft_multimem" => comm.team_cft_multimem()?,
        "given" => Team {
            n_ranks: step.int("n_ranks", 0) as i32,
            rank: step.int("rank", 0) as i32,
            stride: step.int("stride", 0) as i32,
        },
        _ => return internal(),
    };
    let member = step.int("team_rank", 0) as i32;
    match what(step) {
        "n_ranks" => int(team.n_ranks),
        "rank" => int(team.rank),
        "stride" => int(team.stride),
        "to_world" => int(comm.team_rank_to_world(team, member)?),
        "to_lsa" => int(comm.team_rank_to_lsa(team, member)?),
        _ => internal(),
    }
}

/// `revoke`, `suspend` (flags), `resume`.
pub fn comm_control(r: &mut Runner, step: &Step) -> StepResult {
    let comm = comm_arg(r, step);
    match step.op.as_str() {
        "revoke" => comm.revoke()?,
        "suspend" => comm.suspend(ncore::SuspendFlags(step.int("flags", 0) as u32))?,
        _ => comm.resume()?,
    }
    Ok(Value::None)
}

/// `mem_stat`: one memory statistic as the step's value.
pub fn mem_stat(r: &mut Runner, step: &Step) -> StepResult {
    let stat = ncore::MemStat(step.int("stat", 0) as u32);
    int(comm_arg(r, step).mem_stat(stat)? as i64)
}

/// `group_start`, `group_end`.
pub fn group(step: &Step) -> StepResult {
    if step.op == "group_start" {
        // SAFETY: the runner's buffers live until the process ends, beyond
        // any group.
        unsafe { ncore::group_start()? };
    } else {
        ncore::group_end()?;
    }
    Ok(Value::None)
}

/// The `buffer` argument's pointer and size (`size` overrides the bytes).
fn buffer_range(r: &Runner, step: &Step) -> (*mut std::ffi::c_void, usize) {
    let obj = r.objects.get(step.arg("buffer"));
    let bytes = match step.arg("size") {
        Some(size) => parse_int(size) as usize,
        None => obj.map_or(0, |o| o.bytes),
    };
    (obj.map_or(std::ptr::null_mut(), |o| o.ptr), bytes)
}

/// `register_buffer`.
pub fn register_buffer(r: &mut Runner, step: &Step) -> StepResult {
    let (ptr, bytes) = buffer_range(r, step);
    // SAFETY: the runner's buffers live until the process ends.
    let handle = unsafe { comm_arg(r, step).register_buffer_raw(ptr, bytes)? }.into_raw();
    r.objects.put(
        step.arg("as"),
        Object {
            handle,
            ..Object::new(Kind::RegisteredBuffer)
        },
    );
    Ok(Value::None)
}

/// `register_window`.
pub fn register_window(r: &mut Runner, step: &Step) -> StepResult {
    let (ptr, bytes) = buffer_range(r, step);
    let flags = WindowFlags(step.int("flags", 0) as u32);
    // SAFETY: the runner's buffers live until the process ends and are only
    // read through the library's copies.
    let handle = unsafe { comm_arg(r, step).register_window_raw(ptr, bytes, flags)? }.into_raw();
    r.objects.put(
        step.arg("as"),
        Object {
            handle,
            ptr,
            ..Object::new(Kind::Window)
        },
    );
    Ok(Value::None)
}

/// `window_query`.
pub fn window_query(r: &mut Runner, step: &Step) -> StepResult {
    let obj = r.objects.get(step.arg("window")).copied();
    // SAFETY: the runner's buffers outlive every window.
    let w = ManuallyDrop::new(unsafe { Window::from_raw(obj.map_or(0, |o| o.handle)) });
    let peer = step.int("peer", 0) as i32;
    let offset = step.int("offset", 0) as usize;
    match what(step) {
        "size" => int(w.size()?),
        "peer_size" => int(w.peer_size(peer)?),
        "flags" => int(w.flags()?.0),
        "user_pointer_matches" => {
            let p = w.user_pointer()?;
            int(obj.is_some_and(|o| o.ptr == p) as i64)
        }
        "peer_pointer_null" => int(w.peer_device_pointer(peer, offset)?.is_none() as i64),
        "lsa_pointer_null" => int(w.lsa_device_pointer(peer, offset)?.is_none() as i64),
        "multimem_pointer_null" => int(w.lsa_multimem_device_pointer(offset)?.is_none() as i64),
        // CFT logical endpoint addresses: the value is le_offset;
        // cft_le_offset's team is the step's n_ranks, rank, stride and its
        // member `peer`.
        "multimem_le_offset" => int(w.multimem_le_info(offset)?.le_offset as i64),
        "peer_le_offset" => int(w.peer_le_info(peer, offset)?.le_offset as i64),
        "cft_le_offset" => {
            let team = Team {
                n_ranks: step.int("n_ranks", 0) as i32,
                rank: step.int("rank", 0) as i32,
                stride: step.int("stride", 0) as i32,
            };
            int(w.cft_le_info(peer, team, offset)?.le_offset as i64)
        }
        _ => internal(),
    }
}

/// `registered_buffer_query`.
pub fn registered_buffer_query(r: &mut Runner, step: &Step) -> StepResult {
    // SAFETY: the runner's buffers outlive every registration.
    let h = ManuallyDrop::new(unsafe {
        RegisteredBuffer::from_raw(r.objects.handle(step.arg("handle")))
    });
    match what(step) {
        "size" => int(h.size()?),
        "pointer_matches" => {
            let p = h.pointer()?;
            int(r
                .objects
                .get(step.arg("buffer"))
                .is_some_and(|o| o.ptr == p) as i64)
        }
        _ => internal(),
    }
}

/// The kind and handle of the `handle` argument; a null or unknown name is
/// treated as a window, as in the C runner.
fn handle_arg(r: &Runner, step: &Step) -> (Kind, u64) {
    r.objects
        .get(step.arg("handle"))
        .map_or((Kind::Window, 0), |o| (o.kind, o.handle))
}

/// `close`: by the kind the handle was made as.
pub fn close(r: &mut Runner, step: &Step) -> StepResult {
    let (kind, h) = handle_arg(r, step);
    match kind {
        // SAFETY (these three): the runner's buffers and scalars outlive
        // every handle made over them.
        Kind::RegisteredBuffer => {
            ManuallyDrop::new(unsafe { RegisteredBuffer::from_raw(h) }).close()?
        }
        Kind::CustomRedOp => ManuallyDrop::new(unsafe { CustomRedOp::from_raw(h) }).close()?,
        Kind::DevComm => ManuallyDrop::new(DevComm::from_raw(h)).close()?,
        Kind::Symmetric => ManuallyDrop::new(SymmetricMemory::from_raw(h)).free()?,
        Kind::Comm => ManuallyDrop::new(Communicator::from_raw(h)).destroy()?,
        _ => ManuallyDrop::new(unsafe { Window::from_raw(h) }).close()?,
    }
    Ok(Value::None)
}

/// `is_valid`.
pub fn is_valid(r: &mut Runner, step: &Step) -> StepResult {
    let (kind, h) = handle_arg(r, step);
    let valid = match kind {
        // SAFETY (these three): as in close.
        Kind::RegisteredBuffer => {
            ManuallyDrop::new(unsafe { RegisteredBuffer::from_raw(h) }).is_valid()
        }
        Kind::CustomRedOp => ManuallyDrop::new(unsafe { CustomRedOp::from_raw(h) }).is_valid(),
        Kind::DevComm => ManuallyDrop::new(DevComm::from_raw(h)).is_valid(),
        Kind::Symmetric => ManuallyDrop::new(SymmetricMemory::from_raw(h)).is_valid(),
        Kind::Comm => ManuallyDrop::new(Communicator::from_raw(h)).is_valid(),
        _ => ManuallyDrop::new(unsafe { Window::from_raw(h) }).is_valid(),
    };
    int(valid as i64)
}

/// The scalar in the operator's own type; 16/8-bit floats take hex bits
/// (`scalar_bits`).
fn scalar_bytes(step: &Step, dtype: DataType) -> [u8; 8] {
    let s: f64 = step
        .arg("scalar")
        .and_then(|t| t.parse().ok())
        .unwrap_or(1.0);
    let mut out = [0u8; 8];
    match dtype {
        DataType::FLOAT32 => out[..4].copy_from_slice(&(s as f32).to_ne_bytes()),
        DataType::FLOAT64 => out.copy_from_slice(&s.to_ne_bytes()),
        DataType::INT32 | DataType::UINT32 => out[..4].copy_from_slice(&(s as i32).to_ne_bytes()),
        DataType::INT64 | DataType::UINT64 => out.copy_from_slice(&(s as i64).to_ne_bytes()),
        DataType::INT8 | DataType::UINT8 => out[0] = s as i32 as u8,
        _ => {
            let bits = u32::from_str_radix(step.arg("scalar_bits").unwrap_or("0"), 16).unwrap_or(0);
            out[..4].copy_from_slice(&bits.to_ne_bytes());
        }
    }
    out
}

/// `create_pre_mul_sum`: host-immediate or device-resident scalar; no
/// `scalar` argument passes NULL (an error case).
pub fn create_pre_mul_sum(r: &mut Runner, step: &Step) -> StepResult {
    let dtype = dtype_arg(step, "dtype");
    let bytes = scalar_bytes(step, dtype);
    let comm = comm_arg(r, step);
    let device = step.arg("residence") == Some("device");
    let (redop, handle) = if step.arg("scalar").is_none() {
        let residence = if device {
            ScalarResidence::Device
        } else {
            ScalarResidence::HostImmediate
        };
        // SAFETY: NULL is rejected by the library before anything is read.
        let op = unsafe { comm.create_pre_mul_sum_raw(std::ptr::null(), dtype, residence)? };
        (op.op().map_or(0, |o| o.raw()), op.into_raw())
    } else if device {
        let mut memory = DeviceMemory::alloc(8, r.backend)?;
        memory.write(0, &bytes)?;
        let op = comm.create_pre_mul_sum_device(&memory, dtype);
        let made = op.map(|op| (op.op().map_or(0, |o| o.raw()), op.into_raw()));
        // The operator reads the scalar at every use: it stays until the
        // case ends, under a name no plan can spell (plans have no spaces).
        let ptr = memory.into_raw().0;
        r.objects.put(
            Some(" scalar"),
            Object {
                ptr,
                ..Object::new(Kind::Memory)
            },
        );
        made?
    } else {
        let op = comm.create_pre_mul_sum_bytes(&bytes, dtype)?;
        (op.op().map_or(0, |o| o.raw()), op.into_raw())
    };
    r.objects.put(
        step.arg("as"),
        Object {
            handle,
            redop,
            ..Object::new(Kind::CustomRedOp)
        },
    );
    Ok(Value::None)
}

/// `custom_redop_query` (what: dtype).
pub fn custom_redop_query(r: &mut Runner, step: &Step) -> StepResult {
    // SAFETY: the runner's scalars outlive every operator made over them.
    let op =
        ManuallyDrop::new(unsafe { CustomRedOp::from_raw(r.objects.handle(step.arg("handle"))) });
    int(op.dtype()?.raw())
}

/// `create_dev_comm`: requirements `null` or `field:value,...`.
pub fn create_dev_comm(r: &mut Runner, step: &Step) -> StepResult {
    let requirements = match step.arg("requirements") {
        None | Some("null") => None,
        Some(text) => {
            let mut req = DevCommRequirements::default();
            let field = |name: &str| object_field(text, name).map(parse_int);
            if let Some(v) = field("struct_size") {
                req.struct_size = v as u32;
            }
            let set = |slot: &mut i32, name: &str| {
                if let Some(v) = field(name) {
                    *slot = v as i32;
                }
            };
            set(&mut req.barrier_count, "barrier_count");
            set(&mut req.lsa_barrier_count, "lsa_barrier_count");
            set(&mut req.gin_signal_count, "gin_signal_count");
            set(&mut req.gin_counter_count, "gin_counter_count");
            if let Some(v) = field("lsa_multimem") {
                req.lsa_multimem = v != 0;
            }
            if let Some(v) = field("gin_force_enable") {
                req.gin_force_enable = v != 0;
            }
            if let Some(v) = field("gin_connection_type") {
                req.gin_connection_type = GinConnectionType(v as i32);
            }
            req.gin_custom_stride = field("gin_custom_stride").map(|v| v as i32);
            req.cft_caps = field("cft_caps").map(|v| v as i32);
            req.cft_barrier_count = field("cft_barrier_count").map(|v| v as i32);
            Some(req)
        }
    };
    // One team requirement and one resource requirement at most.
    let text = step.arg("requirements").unwrap_or("null");
    let comm = comm_arg(r, step);
    let number = |name: &str| object_field(text, name).map_or(0, parse_int) as i32;
    let mut teams = Vec::new();
    if let Some(which) = object_field(text, "team_requirement") {
        teams.push(TeamRequirement {
            team: named_team(&comm, which)?,
            multimem: number("team_multimem") != 0,
        });
    }
    let mut resources = Vec::new();
    if let Some(kind) = object_field(text, "resource") {
        let team = || named_team(&comm, object_field(text, "resource_team").unwrap_or("lsa"));
        resources.push(match kind {
            "lsa_barrier" => ResourceRequirement::LsaBarrier {
                team: team()?,
                n_barriers: number("n_barriers"),
            },
            "gin_barrier" => ResourceRequirement::GinBarrier {
                team: team()?,
                n_barriers: number("n_barriers"),
            },
            _ => ResourceRequirement::LlA2a {
                n_blocks: number("n_blocks"),
                max_elements: number("max_elements"),
                max_element_size: number("max_element_size"),
            },
        });
    }
    let handle = if teams.is_empty() && resources.is_empty() {
        comm.create_dev_comm(requirements.as_ref())?
    } else {
        comm.create_dev_comm_with(requirements.as_ref(), &teams, &resources)?
    }
    .into_raw();
    r.objects.put(
        step.arg("as"),
        Object {
            handle,
            ..Object::new(Kind::DevComm)
        },
    );
    Ok(Value::None)
}

/// A named team: world, lsa, rail, or outside (the world team with one
/// member more than the communicator has).
fn named_team(comm: &Communicator, which: &str) -> ncore::Result<Team> {
    match which {
        "lsa" => comm.team_lsa(),
        "rail" => comm.team_rail(),
        "outside" => comm.team_world().map(|t| Team {
            n_ranks: t.n_ranks + 1,
            ..t
        }),
        _ => comm.team_world(),
    }
}

/// `dev_comm_info`.
pub fn dev_comm_info(r: &mut Runner, step: &Step) -> StepResult {
    let d = ManuallyDrop::new(DevComm::from_raw(r.objects.handle(step.arg("handle"))));
    let info = d.info();
    if !matches!(
        what(step),
        "rank"
            | "nranks"
            | "lsa_rank"
            | "lsa_size"
            | "gin_type"
            | "railed_gin_type"
            | "resource_count"
    ) {
        return internal();
    }
    let info = info?;
    match what(step) {
        "rank" => int(info.rank),
        "nranks" => int(info.nranks),
        "lsa_rank" => int(info.lsa_rank),
        "lsa_size" => int(info.lsa_size),
        "gin_type" => int(info.gin_type.0),
        "resource_count" => int(info.resource_count),
        _ => int(info.railed_gin_type.0),
    }
}

/// `dev_comm_resource_handle`: `index`, `what` kind, n_barriers, has_slots.
pub fn dev_comm_resource_handle(r: &mut Runner, step: &Step) -> StepResult {
    let d = ManuallyDrop::new(DevComm::from_raw(r.objects.handle(step.arg("handle"))));
    if !matches!(what(step), "kind" | "n_barriers" | "has_slots") {
        return internal();
    }
    let handle = d.resource_handle(step.int("index", 0) as i32)?;
    let (kind, n_barriers, slots) = match handle {
        ResourceHandle::LsaBarrier { n_barriers, .. } => (1, n_barriers, 0),
        ResourceHandle::GinBarrier { .. } => (2, 0, 0),
        ResourceHandle::LlA2a { n_slots, .. } => (3, 0, n_slots),
    };
    match what(step) {
        "kind" => int(kind),
        "n_barriers" => int(n_barriers),
        _ => int(i32::from(slots > 0)),
    }
}

/// `dev_comm_multimem_handle`: `team`, `what` base_null.
pub fn dev_comm_multimem_handle(r: &mut Runner, step: &Step) -> StepResult {
    let team = named_team(&comm_arg(r, step), step.arg("team").unwrap_or("world"))?;
    let d = ManuallyDrop::new(DevComm::from_raw(r.objects.handle(step.arg("handle"))));
    if what(step) != "base_null" {
        return internal();
    }
    int(i32::from(d.multimem_handle(team)?.mc_base_pointer.is_none()))
}

/// `symmetric_alloc`.
pub fn symmetric_alloc(r: &mut Runner, step: &Step) -> StepResult {
    let handle = comm_arg(r, step)
        .symmetric_alloc(step.int("size", 0) as usize)?
        .into_raw();
    r.objects.put(
        step.arg("as"),
        Object {
            handle,
            ..Object::new(Kind::Symmetric)
        },
    );
    Ok(Value::None)
}

/// `symmetric_query` (size, or peer_pointer_null for `pe`).
pub fn symmetric_query(r: &mut Runner, step: &Step) -> StepResult {
    let sym = ManuallyDrop::new(SymmetricMemory::from_raw(r.objects.handle(step.arg("sym"))));
    if what(step) == "size" {
        return int(sym.size()?);
    }
    int(sym.peer_pointer(step.int("pe", 0) as i32)?.is_none() as i64)
}

/// `split` (a NOCOLOR result is stored as the null handle): the parent's
/// config, or with blocking=0 a non-blocking child with the case's timeout
/// (still initialising is a success; `settle` waits for it).
pub fn split(r: &mut Runner, step: &Step) -> StepResult {
    let config = (step.arg("blocking").is_some() && step.int("blocking", 1) == 0).then(|| {
        let c = Config::new().blocking(false).timeout_ms(r.timeout_ms);
        match r.device {
            Some(d) => c.device(d),
            None => c,
        }
    });
    let out = comm_arg(r, step).split(
        step.int("color", 0) as i32,
        step.int("key", 0) as i32,
        config.as_ref(),
    )?;
    let handle = out.map_or(0, Communicator::into_raw);
    r.objects.put(
        step.arg("as"),
        Object {
            handle,
            ..Object::new(Kind::Comm)
        },
    );
    Ok(Value::None)
}

/// `settle`: polls the communicator's asynchronous state until it is not
/// in progress (at most the case's timeout); the state is the step's status.
pub fn settle(r: &mut Runner, step: &Step) -> StepResult {
    let comm = comm_arg(r, step);
    let deadline =
        std::time::Instant::now() + std::time::Duration::from_millis(r.timeout_ms.max(0) as u64);
    loop {
        match comm.async_error()? {
            Some(ErrorKind::InProgress) if std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(1))
            }
            Some(kind) => return Err(ncore::Error::new(kind, "")),
            None => return Ok(Value::None),
        }
    }
}

/// `shrink`.
pub fn shrink(r: &mut Runner, step: &Step) -> StepResult {
    let exclude: Vec<i32> = step
        .arg("exclude")
        .unwrap_or("")
        .split(',')
        .filter(|s| !s.is_empty())
        .map(|s| parse_int(s) as i32)
        .collect();
    let flags = ShrinkFlags(step.int("flags", 0) as u32);
    let handle = comm_arg(r, step).shrink(&exclude, None, flags)?.into_raw();
    r.objects.put(
        step.arg("as"),
        Object {
            handle,
            ..Object::new(Kind::Comm)
        },
    );
    Ok(Value::None)
}

/// `finalize`, `destroy`, `abort`.
pub fn lifecycle(r: &mut Runner, step: &Step) -> StepResult {
    let comm = comm_arg(r, step);
    match step.op.as_str() {
        "finalize" => comm.finalize()?,
        "abort" => comm.abort()?,
        _ => comm.destroy()?,
    }
    Ok(Value::None)
}

/// `synchronize`: waits for the default stream, watching the communicator.
pub fn synchronize(r: &mut Runner, step: &Step) -> StepResult {
    comm_arg(r, step).synchronize(r.stream())?;
    Ok(Value::None)
}

/// `mem_alloc`, `mem_free` (a second free is the library's error).
pub fn mem(r: &mut Runner, step: &Step) -> StepResult {
    if step.op == "mem_alloc" {
        let (ptr, _) = DeviceMemory::alloc(step.int("size", 0) as usize, r.backend)?.into_raw();
        r.objects.put(
            step.arg("as"),
            Object {
                ptr,
                ..Object::new(Kind::Memory)
            },
        );
    } else {
        let ptr = r
            .objects
            .get(step.arg("ptr"))
            .map_or(std::ptr::null_mut(), |o| o.ptr);
        // SAFETY: the runner holds no other use of the memory.
        unsafe { ncore::free_raw(ptr, r.backend)? };
        if let Some(o) = r.objects.get_mut(step.arg("ptr")) {
            o.freed = true;
        }
    }
    Ok(Value::None)
}

/// `param`: the parameter `key` as the hex of its text, or (`listed`) 1 if
/// `ncore::param_keys` names it.
pub fn param(step: &Step) -> StepResult {
    let key = step.arg("key").unwrap_or("");
    if what(step) == "listed" {
        return int(i64::from(ncore::param_keys()?.iter().any(|k| k == key)));
    }
    Ok(Value::Hex(
        ncore::param(key)?
            .bytes()
            .map(|b| format!("{b:02x}"))
            .collect(),
    ))
}

/// `library_info`: backend_reason as the hex of its bytes (the value
/// channel of text), features masked by `mask` (default: all bits).
pub fn library_info(step: &Step) -> StepResult {
    let info = ncore::library_info()?;
    match what(step) {
        "version_matches" => int(i64::from(info.version == ncore::version())),
        "backend" => int(info.backend.map_or(0, |b| b.raw())),
        "features" => int(info.features.0 & step.int("mask", -1) as u32),
        "backend_reason" => Ok(Value::Hex(
            info.backend_reason
                .bytes()
                .map(|b| format!("{b:02x}"))
                .collect(),
        )),
        _ => internal(),
    }
}

/// `dtype_size`.
pub fn dtype_size(step: &Step) -> StepResult {
    int(dtype_arg(step, "dtype").size()?)
}

/// `sleep`.
pub fn sleep(step: &Step) -> StepResult {
    std::thread::sleep(std::time::Duration::from_millis(
        step.int("ms", 0).max(0) as u64
    ));
    Ok(Value::None)
}

extern "C" {
    /// POSIX `_exit`: ends the process without running exit handlers, as a
    /// crashed rank would.
    fn _exit(status: i32) -> !;
}

/// `die`: the process ends at once, without cleanup.
pub fn die() -> StepResult {
    use std::io::Write;
    let _ = std::io::stdout().flush();
    // SAFETY: ends the process; nothing runs afterwards.
    unsafe { _exit(0) }
}
