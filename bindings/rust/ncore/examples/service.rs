//! A small "service" rank: every rank publishes a status record into its
//! right-hand neighbour's window with put_signal, waits for the record from
//! its left-hand neighbour, then all ranks agree on a total with an
//! allreduce, and rank 0 reports.
//!
//! Run (from the repository root, after `make lib`):
//!
//!     cd bindings/rust && cargo build --offline --example service
//!     ../../build/bin/ncore-run -n 4 -- target/debug/examples/service

use ncore::{Backend, Communicator, Config, DeviceMemory, RedOp, WaitSignalDesc, WindowFlags};

/// Words in one status record: rank, requests served, a checksum.
const RECORD: usize = 3;

fn main() {
    if let Err(error) = run() {
        eprintln!("service: {error}");
        std::process::exit(1);
    }
}

fn run() -> ncore::Result<()> {
    let comm = Communicator::from_env(Some(&Config::new().timeout_ms(30_000)))?;
    let rank = comm.rank()?;
    let size = comm.size()?;
    let backend = comm.backend()?;
    let right = (rank + 1) % size;
    let left = (rank + size - 1) % size;

    // Each rank's inbox: one record, in memory from the backend's allocator
    // so that peers can write into it.
    let inbox = DeviceMemory::alloc(RECORD * std::mem::size_of::<u64>(), backend)?;
    let window = comm.register_window(&inbox, WindowFlags::COLL_SYMMETRIC)?;

    let served = 10 * (rank as u64 + 1);
    let record = [rank as u64, served, rank as u64 ^ served];
    if backend == Backend::Host {
        comm.put_signal(&record, RECORD, right, &window, 0, None)?;
    } else {
        // On NCCL the source must be device memory: stage the record there.
        let mut staging = DeviceMemory::alloc(std::mem::size_of_val(&record), backend)?;
        staging.write(0, &record)?;
        let view = staging.as_slice(ncore::DataType::UINT64);
        comm.put_signal(&view, RECORD, right, &window, 0, None)?;
    }
    comm.wait_signal(&[WaitSignalDesc::new(left, 1)], None)?;

    let mut received = [0u64; RECORD];
    inbox.read(0, &mut received)?;
    assert_eq!(
        received[0], left as u64,
        "the record came from the left neighbour"
    );
    assert_eq!(received[2], received[0] ^ received[1], "checksum");

    // Everyone agrees on the total of what the neighbours reported.
    let mut total = [0u64];
    if backend == Backend::Host {
        comm.allreduce(&received[1..2], &mut total, 1, RedOp::SUM, None)?;
    } else {
        let mut buf = DeviceMemory::alloc(8, backend)?;
        buf.write(0, &received[1..2])?;
        let mut view = buf.as_slice(ncore::DataType::UINT64);
        comm.allreduce_in_place(&mut view, 1, RedOp::SUM, None)?;
        buf.read(0, &mut total)?;
    }
    println!(
        "rank {rank}/{size}: record from rank {left} says {} served; total {}",
        received[1], total[0]
    );
    if rank == 0 {
        println!("service: {size} ranks, {} requests served in all", total[0]);
    }

    window.close()?;
    comm.finalize()?;
    comm.destroy()
}
