//! The Rust binding's per-call cost on the NCCL backend: one
//! rank on GPU 0, 8-byte calls on device memory and one stream, through
//! the safe `ncore` crate and through the raw `ncore-sys` FFI (exactly what
//! a C caller pays), rounds of 20,000 calls, the two interleaved, best of 5
//! after a warm-up round. Collectives are timed to the end of the stream;
//! send and recv as enqueue calls inside groups of 64 sends then 64
//! receives. Prints one JSON object. Built by bench/gpu/build.sh; run by
//! bench/gpu/run-all.sh on the GPU machine.

use std::hint::black_box;
use std::time::Instant;

use ncore::{sys, Backend, Communicator, Config, DataType, DeviceMemory, RedOp, Stream, UniqueId};

const CALLS: usize = 20_000;
const ROUNDS: usize = 5;
const BATCH: usize = 64;

/// One side of a comparison: issues call `i` of an operation.
type Side<'a> = Box<dyn FnMut() + 'a>;

/// Best seconds per call of each side over the rounds (round 0 warms up;
/// the side that goes first alternates); every call is timed and the
/// stream drained at the end of each round.
fn compare(stream: &Stream, sides: &mut [Side<'_>; 2]) -> [f64; 2] {
    let mut best = [f64::INFINITY; 2];
    for round in 0..=ROUNDS {
        for k in 0..2 {
            let side = (round + k) % 2;
            let start = Instant::now();
            for _ in 0..CALLS {
                (sides[side])();
            }
            stream.synchronize().expect("synchronize");
            let t = start.elapsed().as_secs_f64() / CALLS as f64;
            if round > 0 && t < best[side] {
                best[side] = t;
            }
        }
    }
    best
}

/// The same for send or recv: only the `timed` half of each group counts.
fn compare_in_groups(
    stream: &Stream,
    timed: &mut [Side<'_>; 2],
    other: &mut [Side<'_>; 2],
    send_first: bool,
) -> [f64; 2] {
    let mut best = [f64::INFINITY; 2];
    for round in 0..=ROUNDS {
        for k in 0..2 {
            let side = (round + k) % 2;
            let mut spent = 0.0;
            for _ in 0..CALLS / BATCH {
                // SAFETY: every call queued in the group has its buffers
                // alive (they outlive the benchmark) until group_end.
                unsafe { ncore::group_start().expect("group_start") };
                if !send_first {
                    for _ in 0..BATCH {
                        (other[side])();
                    }
                }
                let start = Instant::now();
                for _ in 0..BATCH {
                    (timed[side])();
                }
                spent += start.elapsed().as_secs_f64();
                if send_first {
                    for _ in 0..BATCH {
                        (other[side])();
                    }
                }
                ncore::group_end().expect("group_end");
            }
            stream.synchronize().expect("synchronize");
            let t = spent / (CALLS / BATCH * BATCH) as f64;
            if round > 0 && t < best[side] {
                best[side] = t;
            }
        }
    }
    best
}

fn main() -> ncore::Result<()> {
    let id = UniqueId::new(Backend::Nccl)?;
    let config = Config::new().backend(Backend::Nccl).device(0);
    let comm = Communicator::init_rank(1, &id, 0, Some(&config))?;
    let stream = Stream::new(Backend::Nccl)?;
    let mut send_mem = DeviceMemory::alloc(64, Backend::Nccl)?;
    let mut recv_mem = DeviceMemory::alloc(64, Backend::Nccl)?;
    let (send_ptr, recv_ptr) = (send_mem.as_ptr(), recv_mem.as_ptr());
    let raw = comm.as_raw();
    let raw_stream = stream.as_raw();
    let f32 = DataType::FLOAT32.raw();
    let mut results = Vec::new();

    {
        let mut buf = recv_mem.as_slice(DataType::FLOAT32);
        let mut sides: [Side<'_>; 2] = [
            Box::new(|| {
                // SAFETY: recv_ptr holds 16 floats of device memory.
                let s = unsafe {
                    sys::ncore_allreduce(raw, recv_ptr, recv_ptr, 2, f32, RedOp::SUM.raw(), raw_stream)
                };
                assert_eq!(black_box(s), 0);
            }),
            Box::new(|| {
                comm.allreduce_in_place(&mut buf, 2, RedOp::SUM, Some(&stream)).expect("allreduce");
            }),
        ];
        results.push(("allreduce", compare(&stream, &mut sides)));
    }
    for send_timed in [true, false] {
        let sbuf = send_mem.as_slice(DataType::FLOAT32);
        let mut rbuf = recv_mem.as_slice(DataType::FLOAT32);
        let ffi_send = || {
            // SAFETY: send_ptr holds 16 floats of device memory.
            let s = unsafe { sys::ncore_send(raw, send_ptr, 2, f32, 0, raw_stream) };
            assert_eq!(black_box(s), 0);
        };
        let ffi_recv = || {
            // SAFETY: recv_ptr holds 16 floats of device memory.
            let s = unsafe { sys::ncore_recv(raw, recv_ptr, 2, f32, 0, raw_stream) };
            assert_eq!(black_box(s), 0);
        };
        let (c, st) = (&comm, &stream);
        let safe_send = move || c.send(&sbuf, 2, 0, Some(st)).expect("send");
        let safe_recv = move || c.recv(&mut rbuf, 2, 0, Some(st)).expect("recv");
        let (mut timed, mut other): ([Side<'_>; 2], [Side<'_>; 2]) = if send_timed {
            ([Box::new(ffi_send), Box::new(safe_send)], [Box::new(ffi_recv), Box::new(safe_recv)])
        } else {
            ([Box::new(ffi_recv), Box::new(safe_recv)], [Box::new(ffi_send), Box::new(safe_send)])
        };
        let best = compare_in_groups(&stream, &mut timed, &mut other, send_timed);
        results.push((if send_timed { "send" } else { "recv" }, best));
    }
    let rows: Vec<String> = results
        .iter()
        .map(|(op, [ffi, safe])| {
            format!(
                "{{\"op\": \"{op}\", \"bytes\": 8, \"c_us\": {:.4}, \"rust_us\": {:.4}, \"added_us\": {:.4}}}",
                ffi * 1e6,
                safe * 1e6,
                (safe - ffi) * 1e6
            )
        })
        .collect();
    println!(
        "{{\"bench\": \"rust-gpu\", \"calls\": {CALLS}, \"rounds\": {ROUNDS}, \"batch\": {BATCH}, \"results\": [{}]}}",
        rows.join(", ")
    );
    drop(send_mem);
    drop(recv_mem);
    stream.destroy()?;
    comm.destroy()
}
