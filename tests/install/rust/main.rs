//! tests/install/rust: the README's first Rust program, in a user's crate
//! with a path dependency on the checkout, built against an installed ncore (pkg-config)
//! and started by the installed ncore-run without LD_LIBRARY_PATH: every
//! rank contributes rank + 1, the allreduce must give n(n+1)/2 everywhere.
//! Rank 0 also prints which libncore was loaded and the library's info.
use ncore::{Communicator, RedOp};

fn run() -> ncore::Result<()> {
    let comm = Communicator::from_env(None)?;
    let rank = comm.rank()?;
    let size = comm.size()?;
    if rank == 0 {
        let info = ncore::library_info()?;
        let path = ncore::sys::library_path().expect("a call above loaded libncore");
        println!("libncore: {}", path.display());
        println!(
            "ncore {} (ABI {}), backend {:?}: {}",
            info.version, info.abi_version, info.backend, info.backend_reason
        );
    }
    let send = [(rank + 1) as f32];
    let mut recv = [0f32];
    comm.allreduce(&send, &mut recv, 1, RedOp::SUM, None)?;
    let want = (size * (size + 1)) as f32 / 2.0;
    if recv[0] != want {
        eprintln!("ring_sum: rank {rank} got {}, expected {want}", recv[0]);
        std::process::exit(1);
    }
    println!("rank {rank} of {size}: sum {}", recv[0]);
    Ok(())
}

fn main() {
    if let Err(e) = run() {
        eprintln!("ring_sum: {e}");
        std::process::exit(1);
    }
}
