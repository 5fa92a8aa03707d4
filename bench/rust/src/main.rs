//! Times calls that move no data on a 1-rank host communicator: the rank
//! query and an empty group (group_start + group_end), through the safe
//! `ncore` crate and through the raw `ncore-sys` FFI, which is exactly what
//! a C caller pays. Prints one line per measurement, in ns per call.

use std::hint::black_box;
use std::time::Instant;

use ncore::{sys, Backend, Communicator, Config, UniqueId};

const ITERATIONS: u32 = 2_000_000;

/// Best of 5 runs of `ITERATIONS` calls of `f`, in ns per call.
fn time(mut f: impl FnMut()) -> f64 {
    (0..5)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..ITERATIONS {
                f();
            }
            start.elapsed().as_nanos() as f64 / ITERATIONS as f64
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() -> ncore::Result<()> {
    let id = UniqueId::new(Backend::Host)?;
    let comm = Communicator::init_rank(1, &id, 0, Some(&Config::new().backend(Backend::Host)))?;
    let raw = comm.as_raw();

    let rank_safe = time(|| {
        black_box(comm.rank().unwrap());
    });
    let rank_ffi = time(|| {
        let mut out = 0;
        // SAFETY: out is a valid place for the result.
        black_box(unsafe { sys::ncore_comm_rank(black_box(raw), &mut out) });
        black_box(out);
    });
    let group_safe = time(|| {
        // SAFETY: the group queues no call.
        unsafe { ncore::group_start().unwrap() };
        ncore::group_end().unwrap();
    });
    let group_ffi = time(|| {
        // SAFETY: no arguments.
        unsafe {
            black_box(sys::ncore_group_start());
            black_box(sys::ncore_group_end());
        }
    });
    println!("rust safe  comm.rank()               {rank_safe:7.1} ns/call");
    println!("rust ffi   ncore_comm_rank           {rank_ffi:7.1} ns/call");
    println!("rust safe  group_start+group_end     {group_safe:7.1} ns/call");
    println!("rust ffi   group_start+group_end     {group_ffi:7.1} ns/call");
    comm.destroy()
}
