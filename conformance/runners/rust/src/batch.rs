//! The batch protocol (conformance/README.md, "Batches"), as in the C runner
//! (runners/c/batch.c). One launch runs several cases in order: the plan
//! directory's `batch` file names a directory per case (holding
//! plan.<rank>); for each case rank 0 makes a fresh unique id and publishes
//! it in <case>/uid (a temporary file, then rename, so no rank reads half an
//! id), and the other ranks wait for it.

use std::time::{Duration, Instant};

use ncore::{Backend, UniqueId};

/// How long a rank waits for rank 0 to publish a case's id: rank 0 may
/// still be finishing the previous case; a longer wait means it is stuck
/// (and run.py's watchdog stops the launch first).
const UID_WAIT: Duration = Duration::from_secs(120);

/// The case directories of `<dir>/batch`, in order.
pub fn load(dir: &str) -> Result<Vec<String>, String> {
    let text = std::fs::read_to_string(format!("{dir}/batch"))
        .map_err(|e| format!("cannot open {dir}/batch: {e}"))?;
    Ok(text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(|l| format!("{dir}/{l}"))
        .collect())
}

/// The case's unique id: made and published by rank 0, read by the others.
pub fn unique_id(case_dir: &str, rank: i32) -> Result<UniqueId, String> {
    let path = format!("{case_dir}/uid");
    if rank == 0 {
        let id = UniqueId::new(Backend::Auto)
            .map_err(|e| format!("ncore_get_unique_id: {}", e.message()))?;
        let tmp = format!("{path}.tmp");
        std::fs::write(&tmp, format!("{}\n", id.to_hex()))
            .and_then(|()| std::fs::rename(&tmp, &path))
            .map_err(|e| format!("cannot write {path}: {e}"))?;
        return Ok(id);
    }
    let start = Instant::now();
    while start.elapsed() < UID_WAIT {
        match std::fs::read_to_string(&path) {
            Ok(text) => {
                return UniqueId::from_hex(text.trim())
                    .map_err(|_| format!("{path} does not hold a unique id"))
            }
            Err(_) => std::thread::sleep(Duration::from_millis(2)),
        }
    }
    Err(format!(
        "rank 0 published no unique id in {path} within {} s",
        UID_WAIT.as_secs()
    ))
}
