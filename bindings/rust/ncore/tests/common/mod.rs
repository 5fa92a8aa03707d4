//! Runs a test body on N ranks as separate processes: the test binary
//! re-executes itself under build/bin/ncore-run, filtered to the one test,
//! with NCORE_RUST_TEST naming it so that the children run the body instead
//! of launching again. A failing rank panics, exits non-zero, and the
//! launcher's failure fails the parent test with every rank's output.
#![allow(dead_code)]

pub mod cuda_graph;

use std::path::PathBuf;
use std::process::Command;

use ncore::{Communicator, Config, Error, ErrorKind};

/// This rank's place in the job `ncore-run` started for a test (its
/// NCORE_RANK, NCORE_NRANKS and NCORE_LOCAL_RANK): the tests' own view of
/// the launcher, so a body knows its rank before it has a communicator.
#[derive(Clone, Copy, Debug)]
pub struct LaunchEnv {
    pub rank: i32,
    pub nranks: i32,
    pub local_rank: i32,
}

impl LaunchEnv {
    /// Reads the launcher's variables (panics outside ncore-run).
    pub fn from_env() -> LaunchEnv {
        let int = |name: &str| -> i32 {
            std::env::var(name)
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("{name} is not set: not started by ncore-run"))
        };
        let rank = int("NCORE_RANK");
        LaunchEnv {
            rank,
            nranks: int("NCORE_NRANKS"),
            local_rank: std::env::var("NCORE_LOCAL_RANK")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(rank),
        }
    }
}

/// The launcher: $NCORE_RUN; else ncore-run next to this test binary (a
/// binary carried as build/bin/rust-nccl-tests to a GPU machine, whose
/// checkout may live elsewhere); else the repository's build/bin/ncore-run.
fn launcher() -> PathBuf {
    if let Some(path) = std::env::var_os("NCORE_RUN") {
        return PathBuf::from(path);
    }
    let sibling = std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.join("ncore-run")));
    if let Some(path) = sibling.filter(|p| p.is_file()) {
        return path;
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../build/bin/ncore-run")
}

/// Runs `body` on `nranks` ranks of the host backend; `name` must be the
/// calling test's name.
pub fn on_ranks(name: &str, nranks: usize, body: fn(&LaunchEnv)) {
    on_ranks_with(name, nranks, "host", body)
}

/// True in a child started by [`on_ranks`] (the parent decides on skips).
pub fn is_child() -> bool {
    std::env::var_os("NCORE_RUST_TEST").is_some()
}

/// [`on_ranks`] on `backend` ("host" or "nccl").
pub fn on_ranks_with(name: &str, nranks: usize, backend: &str, body: fn(&LaunchEnv)) {
    if std::env::var("NCORE_RUST_TEST").as_deref() == Ok(name) {
        let env = LaunchEnv::from_env();
        body(&env);
        return;
    }
    let exe = std::env::current_exe().expect("test binary path");
    let output = Command::new(launcher())
        .args([
            "-n",
            &nranks.to_string(),
            "--backend",
            backend,
            "--timeout",
            "60",
            "--",
        ])
        .arg(exe)
        .args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env("NCORE_RUST_TEST", name)
        .output()
        .expect("start ncore-run");
    assert!(
        output.status.success(),
        "{name} failed on {nranks} ranks ({}):\n{}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// This rank's communicator on the host backend, with a short timeout so a
/// broken test fails instead of hanging.
pub fn world() -> Communicator {
    let config = Config::new().timeout_ms(20_000);
    Communicator::from_env(Some(&config)).expect("from_env")
}

/// Asserts that `result` failed with `kind` and a message containing `text`.
pub fn assert_error<T: std::fmt::Debug>(
    result: ncore::Result<T>,
    kind: ErrorKind,
    text: &str,
) -> Error {
    let error = result.expect_err("the call should have failed");
    assert_eq!(
        error.kind(),
        kind,
        "unexpected kind; message: {}",
        error.message()
    );
    assert!(
        error.message().contains(text),
        "message {:?} does not contain {text:?}",
        error.message()
    );
    error
}
