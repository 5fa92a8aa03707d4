//! ncore conformance runner (Rust): runs this rank's plan through the safe
//! `ncore` crate and prints one canonical JSON line per step
//! (conformance/README.md). Rank, rank count and unique id come from
//! ncore-run's environment; the plan from $NCORE_CONFORMANCE_PLAN_DIR/plan.<rank>.

mod json;
mod objects;
mod ops_data;
mod ops_handles;
mod plan;

use std::io::Write;

use ncore::{Backend, Communicator, Config, LaunchEnv};

use json::Value;
use objects::{Kind, Object, Objects};
use plan::Step;

/// State shared by the steps.
pub struct Runner {
    /// This rank.
    pub rank: i32,
    /// The world communicator's backend (for memory calls).
    pub backend: Backend,
    /// The world communicator's raw handle.
    pub world: u64,
    /// Named objects.
    pub objects: Objects,
}

/// What a step returns: a value on success, or the binding's error.
pub type StepResult = ncore::Result<Value>;

fn main() {
    std::process::exit(run());
}

fn run() -> i32 {
    let (Ok(dir), Ok(rank)) = (
        std::env::var("NCORE_CONFORMANCE_PLAN_DIR"),
        std::env::var("NCORE_RANK"),
    ) else {
        eprintln!("conformance: NCORE_CONFORMANCE_PLAN_DIR and NCORE_RANK must be set");
        return 2;
    };
    let path = format!("{dir}/plan.{rank}");
    let plan = match std::fs::read_to_string(&path)
        .map_err(|e| e.to_string())
        .and_then(|t| plan::parse(&t))
    {
        Ok(plan) => plan,
        Err(e) => {
            eprintln!("conformance: malformed plan {path}: {e}");
            return 2;
        }
    };
    let mut runner = match init_world(plan.timeout_ms) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("conformance: init failed: {e}");
            return 2;
        }
    };
    let stdout = std::io::stdout();
    for step in &plan.steps {
        let Some(result) = execute(&mut runner, step) else {
            eprintln!("conformance: unknown op {}", step.op);
            return 2;
        };
        let (status, message, value) = match result {
            Ok(value) => ("NCORE_OK".to_string(), String::new(), value),
            Err(e) => (e.kind().status_name(), e.message().to_string(), Value::None),
        };
        let line = json::step_line(
            &plan.case_name,
            runner.rank,
            step.index,
            &step.op,
            &status,
            &message,
            &value,
        );
        let mut out = stdout.lock();
        let _ = writeln!(out, "{line}");
        let _ = out.flush();
    }
    // As the C runner: destroy the world and leave; other objects go with
    // the process.
    let world = Communicator::from_raw(runner.world);
    if world.is_valid() {
        let _ = world.destroy();
    }
    std::mem::forget(world);
    0
}

fn init_world(timeout_ms: i32) -> ncore::Result<Runner> {
    let env = LaunchEnv::from_env()?;
    let config = Config::new().timeout_ms(timeout_ms);
    let world = Communicator::init_rank(env.nranks, &env.unique_id, env.rank, Some(&config))?;
    let backend = world.backend()?;
    let mut objects = Objects::default();
    let handle = world.into_raw();
    objects.put(
        Some("world"),
        Object {
            handle,
            ..Object::new(Kind::Comm)
        },
    );
    Ok(Runner {
        rank: env.rank,
        backend,
        world: handle,
        objects,
    })
}

/// Runs one step; `None` for an unknown op.
fn execute(r: &mut Runner, step: &Step) -> Option<StepResult> {
    Some(match step.op.as_str() {
        "buffer" => ops_data::buffer(r, step),
        "check" => ops_data::check(r, step),
        "sync" => ops_data::sync(r),
        "send" | "recv" => ops_data::p2p(r, step),
        "allreduce" | "reduce" | "reduce_scatter" | "broadcast" | "gather" | "scatter"
        | "allgather" | "alltoall" => ops_data::collective(r, step),
        "signal" => ops_data::signal(r, step),
        "wait_signal" => ops_data::wait_signal(r, step),
        "put_signal" => ops_data::put_signal(r, step),
        "symmetric_put" | "symmetric_get" => ops_data::symmetric_copy(r, step),
        "comm_query" => ops_handles::comm_query(r, step),
        "group_start" | "group_end" => ops_handles::group(step),
        "register_buffer" => ops_handles::register_buffer(r, step),
        "register_window" => ops_handles::register_window(r, step),
        "window_query" => ops_handles::window_query(r, step),
        "registered_buffer_query" => ops_handles::registered_buffer_query(r, step),
        "close" => ops_handles::close(r, step),
        "is_valid" => ops_handles::is_valid(r, step),
        "create_pre_mul_sum" => ops_handles::create_pre_mul_sum(r, step),
        "custom_redop_query" => ops_handles::custom_redop_query(r, step),
        "create_dev_comm" => ops_handles::create_dev_comm(r, step),
        "dev_comm_info" => ops_handles::dev_comm_info(r, step),
        "symmetric_alloc" => ops_handles::symmetric_alloc(r, step),
        "symmetric_query" => ops_handles::symmetric_query(r, step),
        "split" => ops_handles::split(r, step),
        "shrink" => ops_handles::shrink(r, step),
        "finalize" | "destroy" | "abort" => ops_handles::lifecycle(r, step),
        "mem_alloc" | "mem_free" => ops_handles::mem(r, step),
        "dtype_size" => ops_handles::dtype_size(step),
        "sleep" => ops_handles::sleep(step),
        "die" => ops_handles::die(),
        _ => return None,
    })
}
