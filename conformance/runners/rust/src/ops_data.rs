//! Steps that move data: buffers, checks, p2p, collectives, one-sided and
//! symmetric copies — each through the ncore crate's public API.

use std::ffi::c_void;
use std::mem::ManuallyDrop;

use ncore::{
    CollConfig, Communicator, DataType, DeviceMemory, DeviceSlice, MemcpyKind, RedOp,
    SignalOptions, Stream, SymmetricMemory, WaitSignalDesc, Window,
};

use crate::json::Value;
use crate::objects::{Kind, Object};
use crate::op_table;
use crate::plan::{object_field, parse_int, Step};
use crate::{Runner, StepResult};

const DTYPE_NAMES: [&str; 12] = [
    "int8",
    "uint8",
    "int32",
    "uint32",
    "int64",
    "uint64",
    "float16",
    "float32",
    "float64",
    "bfloat16",
    "float8_e4m3",
    "float8_e5m2",
];

/// The data type argument `key` (default float32; `raw:N` passes N).
pub fn dtype_arg(step: &Step, key: &str) -> DataType {
    let Some(name) = step.arg(key) else {
        return DataType::FLOAT32;
    };
    if let Some(i) = DTYPE_NAMES.iter().position(|n| *n == name) {
        return DataType::from_raw(i as u32);
    }
    if let Some(raw) = name.strip_prefix("raw:") {
        return DataType::from_raw(parse_int(raw) as u32);
    }
    eprintln!("conformance: unknown dtype {name}");
    std::process::exit(2);
}

/// Element size for pointer arithmetic, as the C runner's (1 if unknown).
pub fn elem_size(dtype: DataType) -> usize {
    dtype.size().unwrap_or(1)
}

/// The communicator argument (default the world), borrowed from its handle.
pub fn comm_arg(r: &Runner, step: &Step) -> ManuallyDrop<Communicator> {
    let raw = match step.arg("comm") {
        Some(name) => r.objects.handle(Some(name)),
        None => r.world,
    };
    ManuallyDrop::new(Communicator::from_raw(raw))
}

fn hex_bytes(hex: &str, bytes: usize) -> Vec<u8> {
    let digits: Vec<u8> = hex
        .bytes()
        .map(|c| (c as char).to_digit(16).unwrap_or(0) as u8)
        .collect();
    (0..bytes)
        .map(|i| {
            if 2 * i + 1 < digits.len() {
                digits[2 * i] << 4 | digits[2 * i + 1]
            } else {
                0
            }
        })
        .collect()
}

/// iota:START:STEP:RANKSTRIDE for integer, float32 and float64 buffers.
fn fill_iota(out: &mut [u8], count: usize, dtype: DataType, spec: &str, rank: i32) {
    let mut parts = spec.split(':').map(|p| p.parse::<f64>().ok());
    let start = parts.next().flatten().unwrap_or(0.0);
    let step = parts.next().flatten().unwrap_or(1.0);
    let stride = parts.next().flatten().unwrap_or(0.0);
    for i in 0..count {
        let v = start + step * i as f64 + stride * rank as f64;
        // `as` casts saturate where C's conversions would be undefined; the
        // cases stay in range.
        let bytes: Vec<u8> = match dtype {
            DataType::INT8 => (v as i8).to_ne_bytes().to_vec(),
            DataType::UINT8 => (v as u8).to_ne_bytes().to_vec(),
            DataType::INT32 => (v as i32).to_ne_bytes().to_vec(),
            DataType::UINT32 => (v as u32).to_ne_bytes().to_vec(),
            DataType::INT64 => (v as i64).to_ne_bytes().to_vec(),
            DataType::UINT64 => (v as u64).to_ne_bytes().to_vec(),
            DataType::FLOAT32 => (v as f32).to_ne_bytes().to_vec(),
            DataType::FLOAT64 => v.to_ne_bytes().to_vec(),
            _ => {
                eprintln!("conformance: iota is not defined for {dtype:?}");
                std::process::exit(2);
            }
        };
        out[i * bytes.len()..(i + 1) * bytes.len()].copy_from_slice(&bytes);
    }
}

fn fill_init(out: &mut [u8], count: usize, dtype: DataType, init: Option<&str>, rank: i32) {
    let bytes = out.len();
    match init {
        None | Some("zero") => out.fill(0),
        Some(spec) if spec.starts_with("iota:") => fill_iota(out, count, dtype, &spec[5..], rank),
        Some(spec) if spec.starts_with("hex:") => {
            out.copy_from_slice(&hex_bytes(&spec[4..], bytes))
        }
        Some(spec) if spec.starts_with("rankhex:") => {
            let part = spec[8..].split('/').nth(rank as usize).unwrap_or("");
            out.copy_from_slice(&hex_bytes(part, bytes));
        }
        Some(other) => {
            eprintln!("conformance: unknown init {other}");
            std::process::exit(2);
        }
    }
}

/// `buffer`: memory from the backend's allocator (or plain host memory),
/// filled with the init pattern.
pub fn buffer(r: &mut Runner, step: &Step) -> StepResult {
    let dtype = dtype_arg(step, "dtype");
    let count = step.int("count", 0) as usize;
    let bytes = count * elem_size(dtype);
    let mut host = vec![0u8; bytes.max(1)];
    fill_init(&mut host[..bytes], count, dtype, step.arg("init"), r.rank);
    let mut object = Object {
        dtype,
        bytes,
        ..Object::new(Kind::Buffer)
    };
    if step.arg("memory") == Some("plain") {
        object.plain = true;
        object.ptr = Box::leak(host.into_boxed_slice()).as_mut_ptr().cast();
        r.objects.put(step.arg("name"), object);
        return Ok(Value::None);
    }
    r.objects.put(step.arg("name"), object);
    let mut memory = DeviceMemory::alloc(bytes.max(1), r.backend)?;
    memory.write(0, &host[..bytes])?;
    // The buffer lives until the case ends (Objects::clear): windows and
    // operators may refer to it after the step.
    let ptr = memory.into_raw().0;
    if let Some(o) = r.objects.get_mut(step.arg("name")) {
        o.ptr = ptr;
    }
    Ok(Value::None)
}

/// `check`: the buffer's bytes (from `offset` elements, `count` elements),
/// as hex.
pub fn check(r: &mut Runner, step: &Step) -> StepResult {
    let Some(obj) = r.objects.get(step.arg("buffer")).copied() else {
        return Err(ncore::Error::new(ncore::ErrorKind::Internal, ""));
    };
    let elem = elem_size(obj.dtype);
    let offset = step.int("offset", 0) as usize * elem;
    let bytes = if step.arg("count").is_some() {
        step.int("count", 0) as usize * elem
    } else {
        obj.bytes - offset
    };
    let mut host = vec![0u8; bytes.max(1)];
    ncore::synchronize(None, r.backend)?;
    let kind = if obj.plain {
        MemcpyKind::HostToHost
    } else {
        MemcpyKind::DeviceToHost
    };
    // SAFETY: the range lies in the buffer the step named; host holds bytes.
    unsafe {
        ncore::memcpy(
            host.as_mut_ptr().cast(),
            obj.ptr.cast::<u8>().add(offset).cast(),
            bytes,
            kind,
            None,
            r.backend,
        )?
    };
    ncore::synchronize(None, r.backend)?;
    Ok(Value::Hex(
        host[..bytes].iter().map(|b| format!("{b:02x}")).collect(),
    ))
}

/// `sync`: waits for the default stream.
pub fn sync(r: &mut Runner) -> StepResult {
    ncore::synchronize(None, r.backend)?;
    Ok(Value::None)
}

/// A view of the buffer argument `key` as elements of the step's `dtype`,
/// starting at `offset` (plus `offset_key` x rank) elements of the buffer's
/// own type, as the C runner computes it; NULL for "null" or an unknown name.
fn slice_arg<'a>(r: &Runner, step: &Step, key: &str, offset_key: Option<&str>) -> DeviceSlice<'a> {
    let dtype = dtype_arg(step, "dtype");
    let Some(obj) = r.objects.get(step.arg(key)) else {
        return DeviceSlice::null(dtype);
    };
    let mut offset = step.int("offset", 0) as usize;
    if let Some(k) = offset_key {
        offset += step.int(k, 0) as usize * r.rank as usize;
    }
    let start = offset * elem_size(obj.dtype);
    let len = obj.bytes.saturating_sub(start) / dtype.size().unwrap_or(1);
    // SAFETY: the view covers the rest of the runner's buffer (which lives
    // until the process ends), as the C runner's pointer does.
    unsafe {
        DeviceSlice::from_raw_parts(
            obj.ptr.cast::<u8>().wrapping_add(start).cast::<c_void>(),
            len,
            dtype,
        )
    }
}

/// A point-to-point call's arguments (op_table.rs calls each row).
pub struct P2pArgs<'a> {
    pub buf: DeviceSlice<'a>,
    pub count: usize,
    pub peer: i32,
    pub stream: Option<&'a Stream>,
}

/// `send`, `recv`: every point-to-point row of core/op_table.h.
pub fn p2p(r: &mut Runner, step: &Step) -> StepResult {
    let comm = comm_arg(r, step);
    let mut a = P2pArgs {
        buf: slice_arg(r, step, "buffer", None),
        count: step.int("count", 0) as usize,
        peer: step.int("peer", 0) as i32,
        stream: r.stream(),
    };
    op_table::p2p(&comm, &step.op, &mut a)?;
    Ok(Value::None)
}

fn redop_arg(r: &Runner, step: &Step) -> RedOp {
    match step.arg("redop") {
        None | Some("sum") => RedOp::SUM,
        Some("prod") => RedOp::PROD,
        Some("max") => RedOp::MAX,
        Some("min") => RedOp::MIN,
        Some("avg") => RedOp::AVG,
        Some(op) if op.starts_with("raw:") => RedOp::from_raw(parse_int(&op[4..]) as i32),
        Some(op) if op.starts_with("custom:") => {
            RedOp::from_raw(r.objects.get(Some(&op[7..])).map_or(-1, |o| o.redop))
        }
        Some(op) => {
            eprintln!("conformance: unknown op {op}");
            std::process::exit(2);
        }
    }
}

/// A collective's arguments (op_table.rs calls each row); `redop` is read
/// only by those that reduce.
pub struct CollectiveArgs<'a> {
    pub send: DeviceSlice<'a>,
    pub recv: DeviceSlice<'a>,
    pub count: usize,
    pub root: i32,
    pub redop: &'a dyn Fn() -> RedOp,
    pub stream: Option<&'a Stream>,
    /// The step's `config` (the `_config` twin), None without one.
    pub config: Option<CollConfig>,
}

/// A collective step's `config` object: its fields by name, the rest
/// unset; None without one.
fn coll_config_arg(step: &Step) -> Option<CollConfig> {
    let text = step.arg("config").filter(|t| *t != "null")?;
    let int = |name: &str| object_field(text, name).map(parse_int);
    let mut c = CollConfig::new();
    if let Some(v) = int("min_ctas") {
        c = c.min_ctas(v as i32);
    }
    if let Some(v) = int("max_ctas") {
        c = c.max_ctas(v as i32);
    }
    if let Some(v) = int("nvls_ctas") {
        c = c.nvls_ctas(v as i32);
    }
    if let Some(v) = int("cga_cluster_size") {
        c = c.cga_cluster_size(v as i32);
    }
    if let Some(v) = int("cta_policy") {
        c = c.cta_policy(v as i32);
    }
    if let Some(v) = int("user_profiler_tag") {
        c = c.user_profiler_tag(v as u64);
    }
    if let Some(v) = int("force_alg_selection") {
        c = c.force_alg_selection(v != 0);
    }
    if let Some(v) = object_field(text, "alg_selection") {
        c = c.alg_selection(v);
    }
    if let Some(v) = int("launch_completion_event") {
        // SAFETY: the case's own handle, passed as the other runners pass
        // it; the cases give one only where the library refuses it.
        c = unsafe { c.launch_completion_event(v as usize as *mut c_void) };
    }
    Some(c)
}

/// Every collective row of core/op_table.h.
pub fn collective(r: &mut Runner, step: &Step) -> StepResult {
    let comm = comm_arg(r, step);
    let redop = || redop_arg(r, step);
    let mut a = CollectiveArgs {
        send: slice_arg(r, step, "send", Some("send_offset_per_rank")),
        recv: slice_arg(r, step, "recv", Some("recv_offset_per_rank")),
        count: step.int("count", 0) as usize,
        root: step.int("root", 0) as i32,
        redop: &redop,
        stream: r.stream(),
        config: coll_config_arg(step),
    };
    op_table::collective(&comm, &step.op, &mut a)?;
    Ok(Value::None)
}

fn signal_options(step: &Step) -> SignalOptions {
    SignalOptions {
        signal_index: step.int("signal_index", 0) as i32,
        context: step.int("context", 0) as i32,
        flags: step.int("flags", 0) as u32,
    }
}

/// `signal`.
pub fn signal(r: &mut Runner, step: &Step) -> StepResult {
    comm_arg(r, step).signal_with(step.int("peer", 0) as i32, signal_options(step), r.stream())?;
    Ok(Value::None)
}

/// `wait_signal`: descriptors `peer:P,op_count:N;...`, optional struct_size.
pub fn wait_signal(r: &mut Runner, step: &Step) -> StepResult {
    let field =
        |obj: &str, name: &str, default: i64| object_field(obj, name).map_or(default, parse_int);
    let descs: Vec<WaitSignalDesc> = step
        .arg("descs")
        .unwrap_or("")
        .split(';')
        .filter(|o| !o.is_empty())
        .map(|o| WaitSignalDesc {
            peer: field(o, "peer", 0) as i32,
            op_count: field(o, "op_count", 1) as u32,
            signal_index: field(o, "signal_index", 0) as i32,
            context: field(o, "context", 0) as i32,
        })
        .collect();
    let comm = comm_arg(r, step);
    match step.arg("struct_size") {
        Some(size) => comm.wait_signal_versioned(&descs, parse_int(size) as u32, r.stream())?,
        None => comm.wait_signal(&descs, r.stream())?,
    }
    Ok(Value::None)
}

/// `put_signal`.
pub fn put_signal(r: &mut Runner, step: &Step) -> StepResult {
    let comm = comm_arg(r, step);
    let buf = slice_arg(r, step, "buffer", None);
    // SAFETY: the runner's buffers live until the process ends.
    let window =
        ManuallyDrop::new(unsafe { Window::from_raw(r.objects.handle(step.arg("window"))) });
    comm.put_signal_with(
        &buf,
        step.int("count", 0) as usize,
        step.int("peer", 0) as i32,
        &window,
        step.int("window_offset", 0) as usize,
        signal_options(step),
        r.stream(),
    )?;
    Ok(Value::None)
}

/// `symmetric_put`, `symmetric_get`: raw byte copies to and from a buffer.
pub fn symmetric_copy(r: &mut Runner, step: &Step) -> StepResult {
    let sym = ManuallyDrop::new(SymmetricMemory::from_raw(r.objects.handle(step.arg("sym"))));
    let ptr = r
        .objects
        .get(step.arg("buffer"))
        .map_or(std::ptr::null_mut(), |o| o.ptr);
    let offset = step.int("sym_offset", 0) as usize;
    let bytes = step.int("bytes", 0) as usize;
    let pe = step.int("pe", 0) as i32;
    // SAFETY: the runner's buffer (or NULL, rejected by the library) is
    // valid for the bytes the case names.
    unsafe {
        if step.op == "symmetric_put" {
            sym.put_raw(offset, ptr, bytes, pe, r.stream())?;
        } else {
            sym.get_raw(ptr, offset, bytes, pe, r.stream())?;
        }
    }
    Ok(Value::None)
}
