//! ncore conformance runner (Rust): runs this rank's part of a batch of
//! cases through the safe `ncore` crate (conformance/README.md), as the C
//! runner does: for each case of $NCORE_CONFORMANCE_PLAN_DIR/batch it makes
//! the world communicator from the case's own unique id (`batch.rs`), prints
//! a header record, one canonical JSON line per step of plan.<rank>,
//! releases everything the case made and prints an end record. Rank and rank
//! count come from ncore-run's environment.

mod batch;
mod capture;
// The driver's graph calls, shared with the ncore crate's tests.
#[allow(dead_code)]
#[path = "../../../../bindings/rust/ncore/tests/common/cuda_graph.rs"]
mod cuda_graph;
mod json;
mod objects;
mod op_table;
mod ops_data;
mod ops_handles;
mod plan;

use std::io::Write;

use ncore::{Backend, Communicator, Config, UniqueId};

use json::Value;
use objects::{Kind, Object, Objects};
use plan::{Plan, Step};

/// State shared by the steps of one case.
pub struct Runner {
    /// This rank.
    pub rank: i32,
    /// The world communicator's backend (for memory calls).
    pub backend: Backend,
    /// The world communicator's raw handle.
    pub world: u64,
    /// Named objects.
    pub objects: Objects,
    /// The case's timeout (configs the runner makes).
    pub timeout_ms: i32,
    /// The GPU named in configs the runner makes (None on the host).
    pub device: Option<i32>,
    /// The stream capture_begin made (capture.rs), and whether it is being
    /// captured now (then every call that takes a stream gets it).
    pub capture_stream: Option<ncore::Stream>,
    pub capturing: bool,
}

/// What a step returns: a value on success, or the binding's error.
pub type StepResult = ncore::Result<Value>;

fn main() {
    std::process::exit(run());
}

/// A launch environment variable as an integer.
fn env_int(name: &str) -> Option<i32> {
    std::env::var(name).ok()?.parse().ok()
}

fn run() -> i32 {
    let (Ok(dir), Some(rank), Some(nranks)) = (
        std::env::var("NCORE_CONFORMANCE_PLAN_DIR"),
        env_int("NCORE_RANK"),
        env_int("NCORE_NRANKS"),
    ) else {
        eprintln!("conformance: run me with tools/ncore-run and NCORE_CONFORMANCE_PLAN_DIR");
        return 2;
    };
    let cases = match batch::load(&dir) {
        Ok(cases) => cases,
        Err(e) => {
            eprintln!("conformance: {e}");
            return 2;
        }
    };
    // Every plan is read and checked before the first case runs.
    let mut plans = Vec::new();
    for case in &cases {
        let path = format!("{case}/plan.{rank}");
        match std::fs::read_to_string(&path)
            .map_err(|e| e.to_string())
            .and_then(|t| plan::parse(&t))
        {
            Ok(plan) => plans.push(plan),
            Err(e) => {
                eprintln!("conformance: malformed plan {path}: {e}");
                return 2;
            }
        }
    }
    if let Some(step) = plans
        .iter()
        .flat_map(|p| &p.steps)
        .find(|s| lookup(&s.op).is_none())
    {
        eprintln!("conformance: unknown op {}", step.op);
        return 2;
    }
    for (case, plan) in cases.iter().zip(&plans) {
        let id = match batch::unique_id(case, rank) {
            Ok(id) => id,
            Err(e) => {
                eprintln!("conformance: {e}");
                return 2;
            }
        };
        run_case(plan, rank, nranks, &id);
    }
    0
}

/// Prints one line and flushes it.
fn emit(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// Runs one case: world, header, steps, release, end record.
fn run_case(plan: &Plan, rank: i32, nranks: i32, id: &UniqueId) {
    if let Some(mut runner) = begin_case(plan, rank, nranks, id) {
        for step in &plan.steps {
            let op = lookup(&step.op).expect("every op was checked before the batch");
            let result = op(&mut runner, step);
            let (status, message, value) = match result {
                Ok(value) => ("NCORE_OK".to_string(), String::new(), value),
                Err(e) => (e.kind().status_name(), e.message().to_string(), Value::None),
            };
            emit(&json::step_line(
                &plan.case_name,
                runner.rank,
                step.index,
                &step.op,
                &status,
                &message,
                &value,
            ));
        }
        capture::release(&mut runner);
        runner.objects.clear(runner.backend);
    }
    emit(&json::end_line(&plan.case_name, rank));
}

/// The GPU this rank names for its communicators: local rank % devices on
/// NCCL (ncore/launch.h's rule, as every runner does), None on the host.
fn rank_device() -> Option<i32> {
    if Backend::Auto.resolve().ok()? != Backend::Nccl {
        return None;
    }
    let count = ncore::device_count(Backend::Nccl).ok().filter(|&n| n > 0)?;
    let local = env_int("NCORE_LOCAL_RANK").or_else(|| env_int("NCORE_RANK")).unwrap_or(0);
    Some(local % count)
}

/// Makes the case's world communicator and prints the header record: the
/// world's size and this rank's LSA team, or why there is no world.
fn begin_case(plan: &Plan, rank: i32, nranks: i32, id: &UniqueId) -> Option<Runner> {
    let mut config = Config::new().timeout_ms(plan.timeout_ms);
    if let Some(device) = rank_device() {
        config = config.device(device);
    }
    let made = Communicator::init_rank(nranks, id, rank, Some(&config)).and_then(|world| {
        let team = (world.size()?, world.lsa_rank()?, world.lsa_size()?);
        Ok((world.backend()?, team, world))
    });
    match made {
        Ok((backend, team, world)) => {
            emit(&json::begin_line(
                &plan.case_name,
                rank,
                "NCORE_OK",
                "",
                Some(team),
            ));
            let handle = world.into_raw();
            let mut objects = Objects::default();
            objects.put(
                Some("world"),
                Object {
                    handle,
                    ..Object::new(Kind::Comm)
                },
            );
            Some(Runner {
                rank,
                backend,
                world: handle,
                objects,
                timeout_ms: plan.timeout_ms,
                device: rank_device(),
                capture_stream: None,
                capturing: false,
            })
        }
        Err(e) => {
            let status = e.kind().status_name();
            emit(&json::begin_line(
                &plan.case_name,
                rank,
                &status,
                e.message(),
                None,
            ));
            None
        }
    }
}

/// A step's implementation.
type Op = fn(&mut Runner, &Step) -> StepResult;

/// The implementation of `op`, or `None` for an op this runner does not know.
fn lookup(op: &str) -> Option<Op> {
    let f: Op = match op {
        "buffer" => ops_data::buffer,
        "check" => ops_data::check,
        "sync" => |r, _| ops_data::sync(r),
        // the collective and point-to-point rows of core/op_table.h
        op if op_table::is_collective(op) => ops_data::collective,
        op if op_table::is_p2p(op) => ops_data::p2p,
        "signal" => ops_data::signal,
        "wait_signal" => ops_data::wait_signal,
        "put_signal" => ops_data::put_signal,
        "symmetric_put" | "symmetric_get" => ops_data::symmetric_copy,
        "comm_query" => ops_handles::comm_query,
        "team" => ops_handles::team,
        "group_start" | "group_end" => |_, s| ops_handles::group(s),
        "register_buffer" => ops_handles::register_buffer,
        "register_window" => ops_handles::register_window,
        "window_query" => ops_handles::window_query,
        "registered_buffer_query" => ops_handles::registered_buffer_query,
        "close" => ops_handles::close,
        "is_valid" => ops_handles::is_valid,
        "create_pre_mul_sum" => ops_handles::create_pre_mul_sum,
        "custom_redop_query" => ops_handles::custom_redop_query,
        "create_dev_comm" => ops_handles::create_dev_comm,
        "dev_comm_info" => ops_handles::dev_comm_info,
        "dev_comm_resource_handle" => ops_handles::dev_comm_resource_handle,
        "dev_comm_multimem_handle" => ops_handles::dev_comm_multimem_handle,
        "symmetric_alloc" => ops_handles::symmetric_alloc,
        "symmetric_query" => ops_handles::symmetric_query,
        "split" => ops_handles::split,
        "shrink" => ops_handles::shrink,
        "finalize" | "destroy" | "abort" => ops_handles::lifecycle,
        "revoke" | "suspend" | "resume" => ops_handles::comm_control,
        "mem_stat" => ops_handles::mem_stat,
        "synchronize" => ops_handles::synchronize,
        "mem_alloc" | "mem_free" => ops_handles::mem,
        "dtype_size" => |_, s| ops_handles::dtype_size(s),
        "library_info" => |_, s| ops_handles::library_info(s),
        "param" => |_, s| ops_handles::param(s),
        "sleep" => |_, s| ops_handles::sleep(s),
        "settle" => ops_handles::settle,
        "die" => |_, _| ops_handles::die(),
        "capture_begin" => capture::capture_begin,
        "capture_end" => capture::capture_end,
        _ => return None,
    };
    Some(f)
}
