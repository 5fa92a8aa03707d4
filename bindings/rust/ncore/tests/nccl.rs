//! The NCCL backend through device memory, on 1 and 2 ranks: each rank is a
//! process started by ncore-run (see common/mod.rs) on device
//! rank % device_count. Two ranks need two GPUs, or NCORE_OVERSUBSCRIBE=1,
//! under which ncore-run gives each rank its own NCCL host identity
//! (ncore_launch_env_isolate_host) so that both share one GPU; each rank's
//! LSA team is then itself, and calls that need a load/store-reachable peer
//! must answer exactly NotSupported naming the LSA team. Runs only where
//! NCCL and a GPU are present, and says why it skips elsewhere.
//!
//! The same body runs on the host backend too (every rank an LSA peer), so
//! that CI, which has no GPU, exercises it. The CUDA graph test
//! (`nccl_graph_capture_on_two_ranks`) runs on NCCL only: the
//! host backend has nothing to capture; its driver calls come from
//! libcuda.so.1 loaded at run time (common/cuda_graph.rs).
//!
//! On a GPU machine the binary is carried as build/bin/rust-nccl-tests
//! (bindings/rust/test.sh copies it there); run it with NCORE_RUN naming
//! ncore-run and libncore on LD_LIBRARY_PATH, as tools/gpu-run.sh does.

mod common;

use std::io::Write;

use common::{assert_error, is_child, on_ranks_with};
use ncore::{
    Backend, Communicator, Config, DataType, DeviceMemory, ErrorKind, RedOp, Stream,
    WaitSignalDesc, WindowFlags,
};

/// Whether the launcher was asked to share GPUs (NCORE_OVERSUBSCRIBE set
/// to anything but "" or "0", as tools/ncore_launch_env.h reads it).
fn oversubscribed() -> bool {
    std::env::var("NCORE_OVERSUBSCRIBE").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// Why `ranks` NCCL ranks cannot run here, if they cannot.
fn skip_reason(ranks: i32) -> Option<String> {
    if let Err(e) = Backend::Nccl.resolve() {
        return Some(format!("NCCL backend unavailable: {}", e.message()));
    }
    match ncore::device_count(Backend::Nccl) {
        Ok(0) => Some("no CUDA device".to_string()),
        Ok(n) if n >= ranks || oversubscribed() => None,
        Ok(n) => Some(format!(
            "{ranks} ranks need {ranks} CUDA devices, or NCORE_OVERSUBSCRIBE=1 to share one; found {n}"
        )),
        Err(e) => Some(format!("cannot count CUDA devices: {e}")),
    }
}

/// Runs `body` on `ranks` ranks of the NCCL backend, or says why it cannot.
fn on_nccl_ranks(name: &str, ranks: i32, body: fn(&common::LaunchEnv)) {
    if !is_child() {
        if let Some(reason) = skip_reason(ranks) {
            // Written past libtest's output capture, so the reason shows.
            let _ = writeln!(std::io::stderr(), "skipped {name}: {reason}");
            return;
        }
    }
    on_ranks_with(name, ranks as usize, "nccl", body);
}

#[test]
fn nccl_device_memory_on_one_rank() {
    on_nccl_ranks("nccl_device_memory_on_one_rank", 1, |env| {
        device_memory_body(env, Backend::Nccl)
    });
}

#[test]
fn nccl_device_memory_on_two_ranks() {
    on_nccl_ranks("nccl_device_memory_on_two_ranks", 2, |env| {
        device_memory_body(env, Backend::Nccl)
    });
}

#[test]
fn host_device_memory_on_two_ranks() {
    on_ranks_with("host_device_memory_on_two_ranks", 2, "host", |env| {
        device_memory_body(env, Backend::Host)
    });
}

/// Whether `peer` is in this rank's LSA team (NCCL's team is the block of
/// lsa_size consecutive ranks around this one).
fn lsa_reachable(comm: &Communicator, peer: i32) -> bool {
    let first = comm.rank().unwrap() - comm.lsa_rank().unwrap();
    peer >= first && peer < first + comm.lsa_size().unwrap()
}

/// Checks a call that reaches `peer` through its memory: done when peer is
/// LSA-reachable, else exactly NotSupported naming the LSA team. Returns
/// whether it was done.
fn lsa_call(comm: &Communicator, peer: i32, what: &str, result: ncore::Result<()>) -> bool {
    if lsa_reachable(comm, peer) {
        result.unwrap_or_else(|e| panic!("{what} to LSA peer {peer}: {e}"));
        true
    } else {
        assert_error(result, ErrorKind::NotSupported, "LSA team");
        false
    }
}

/// Waits for an allreduce every rank takes part in.
fn barrier(comm: &Communicator, backend: Backend) {
    let mut one = DeviceMemory::alloc(4, backend).unwrap();
    one.write(0, &[1i32]).unwrap();
    let mut view = one.as_slice(DataType::INT32);
    comm.allreduce_in_place(&mut view, 1, RedOp::SUM, None)
        .unwrap();
    comm.synchronize(None).unwrap();
    assert_eq!(one.to_vec::<i32>().unwrap(), vec![comm.size().unwrap()]);
}

/// allreduce on a stream, a send/recv ring in a group, and a window with
/// put_signal / wait_signal to the next rank (LSA-aware) and to itself, all
/// in memory from ncore's allocator (device memory on NCCL).
fn device_memory_body(env: &common::LaunchEnv, backend: Backend) {
    let device = if backend == Backend::Nccl {
        let device = env.rank % ncore::device_count(backend).unwrap();
        ncore::set_device(backend, device).unwrap();
        device
    } else {
        -1
    };
    let config = Config::new().backend(backend).timeout_ms(60_000);
    let comm = Communicator::from_env(Some(&config)).unwrap();
    assert_eq!(comm.backend().unwrap(), backend);
    assert_eq!(comm.device().unwrap(), device);
    let n = env.nranks;
    if backend == Backend::Nccl && oversubscribed() {
        // Every rank its own NCCL host: nothing is load/store reachable.
        assert_eq!((comm.lsa_rank().unwrap(), comm.lsa_size().unwrap()), (0, 1));
    }
    let peer = (env.rank + 1) % n;
    let from = (env.rank + n - 1) % n;
    let total: f32 = (1..=n).map(|r| r as f32).sum();

    // allreduce on device memory, on a stream of our own.
    let stream = Stream::new(backend).unwrap();
    let mut data = DeviceMemory::alloc(4 * 4, backend).unwrap();
    data.write(0, &[env.rank as f32 + 1.0; 4]).unwrap();
    let mut view = data.as_slice(DataType::FLOAT32);
    comm.allreduce_in_place(&mut view, 4, RedOp::SUM, Some(&stream))
        .unwrap();
    comm.synchronize(Some(&stream)).unwrap();
    assert_eq!(data.to_vec::<f32>().unwrap(), vec![total; 4]);

    // A ring of send/recv in one group.
    let mut out = DeviceMemory::alloc(3 * 4, backend).unwrap();
    out.write(0, &[env.rank * 10, env.rank * 10 + 1, env.rank * 10 + 2])
        .unwrap();
    let mut back = DeviceMemory::alloc(3 * 4, backend).unwrap();
    back.write(0, &[-1i32; 3]).unwrap();
    {
        let send = out.as_slice(DataType::INT32);
        let mut recv = back.as_slice(DataType::INT32);
        ncore::group(|g| {
            g.send(&comm, &send, 3, peer, None)?;
            g.recv(&comm, &mut recv, 3, from, None)
        })
        .unwrap();
    }
    comm.synchronize(None).unwrap();
    assert_eq!(
        back.to_vec::<i32>().unwrap(),
        vec![from * 10, from * 10 + 1, from * 10 + 2]
    );

    // put_signal into the next rank's window (slot `rank`) and into its
    // own (slot n + rank), from device memory; 2 u32 per slot.
    let mut inbox = DeviceMemory::alloc(4096, backend).unwrap();
    inbox.write(0, &[0u8; 4096]).unwrap();
    let window = comm
        .register_window(&inbox, WindowFlags::COLL_SYMMETRIC)
        .unwrap();
    let mut staging = DeviceMemory::alloc(8, backend).unwrap();
    let mine = [100 + env.rank as u32, 200 + env.rank as u32];
    staging.write(0, &mine).unwrap();
    let src = staging.as_slice(DataType::UINT32);
    let slot = |r: i32| 2 * r as usize;
    lsa_call(
        &comm,
        peer,
        "put_signal",
        comm.put_signal(&src, 2, peer, &window, slot(env.rank), None),
    );
    let arrived = lsa_call(
        &comm,
        from,
        "wait_signal",
        comm.wait_signal(&[WaitSignalDesc::new(from, 1)], None),
    );
    comm.put_signal(&src, 2, env.rank, &window, slot(n + env.rank), None)
        .unwrap();
    comm.wait_signal(&[WaitSignalDesc::new(env.rank, 1)], None)
        .unwrap();
    comm.synchronize(None).unwrap();
    let mut got = [0u32; 2];
    inbox.read(4 * slot(n + env.rank), &mut got).unwrap();
    assert_eq!(got, mine, "put into its own window");
    if arrived {
        inbox.read(4 * slot(from), &mut got).unwrap();
        assert_eq!(
            got,
            [100 + from as u32, 200 + from as u32],
            "put from rank {from}"
        );
    }
    assert_eq!(
        window.peer_device_pointer(peer, 0).unwrap().is_some(),
        lsa_reachable(&comm, peer),
        "peer pointer of rank {peer}"
    );
    assert!(window.peer_device_pointer(env.rank, 0).unwrap().is_some());

    barrier(&comm, backend); // no peer still writes into the window
    window.close().unwrap();
    comm.finalize().unwrap();
    comm.destroy().unwrap();
}

#[test]
fn nccl_graph_capture_on_two_ranks() {
    on_nccl_ranks("nccl_graph_capture_on_two_ranks", 2, graph_capture_body);
}

/// The buffers of [`graph_capture_body`], each WORDS i32.
struct GraphBuffers {
    send: DeviceMemory,
    sum: DeviceMemory,
    ring_in: DeviceMemory,
    staging: DeviceMemory,
}

const GRAPH_WORDS: usize = 8;

/// The calls the graph holds, eager or captured: allreduce, a ring in a
/// group, a synchronize that must be refused while capturing, and (between
/// LSA peers) a put_signal to the right with a wait for the left.
fn graph_calls(
    comm: &Communicator,
    b: &mut GraphBuffers,
    window: &ncore::Window<'_>,
    (right, left, one_sided): (i32, i32, bool),
    stream: &Stream,
    capturing: bool,
) {
    let send = b.send.as_slice(DataType::INT32);
    let mut sum = b.sum.as_slice(DataType::INT32);
    let mut ring_in = b.ring_in.as_slice(DataType::INT32);
    let staging = b.staging.as_slice(DataType::INT32);
    comm.allreduce(&send, &mut sum, GRAPH_WORDS, RedOp::SUM, Some(stream))
        .unwrap();
    ncore::group(|g| {
        g.send(comm, &send, GRAPH_WORDS, right, Some(stream))?;
        g.recv(comm, &mut ring_in, GRAPH_WORDS, left, Some(stream))
    })
    .unwrap();
    if capturing {
        assert_error(
            comm.synchronize(Some(stream)),
            ErrorKind::InvalidUsage,
            "CUDA graph",
        );
    }
    if one_sided {
        comm.put_signal(&staging, GRAPH_WORDS, right, window, 0, Some(stream))
            .unwrap();
        comm.wait_signal(&[WaitSignalDesc::new(left, 1)], Some(stream))
            .unwrap();
    }
}

/// [`graph_calls`] run once eagerly, then captured into a CUDA
/// graph on a stream of ours and replayed with new inputs, the data checked
/// after each replay (the ring's and the put's from the left neighbour, the
/// allreduce's sum). A synchronize of the capturing stream is refused
/// (InvalidUsage naming the CUDA graph) and the capture goes on.
fn graph_capture_body(env: &common::LaunchEnv) {
    const REPLAYS: i32 = 4;
    let backend = Backend::Nccl;
    ncore::set_device(backend, env.rank % ncore::device_count(backend).unwrap()).unwrap();
    let config = Config::new().backend(backend).timeout_ms(60_000);
    let comm = Communicator::from_env(Some(&config)).unwrap();
    let n = env.nranks;
    let (right, left) = ((env.rank + 1) % n, (env.rank + n - 1) % n);
    let peers = (
        right,
        left,
        lsa_reachable(&comm, right) && lsa_reachable(&comm, left),
    );
    let stream = Stream::new(backend).unwrap();
    let alloc = || DeviceMemory::alloc(4 * GRAPH_WORDS, backend).unwrap();
    let mut b = GraphBuffers {
        send: alloc(),
        sum: alloc(),
        ring_in: alloc(),
        staging: alloc(),
    };
    let mut inbox = DeviceMemory::alloc(4096, backend).unwrap();
    inbox.write(0, &[0u8; 4096]).unwrap();
    let window = comm
        .register_window(&inbox, WindowFlags::COLL_SYMMETRIC)
        .unwrap();
    // What rank r sends in step s.
    let values = |r: i32, step: i32| -> Vec<i32> {
        (0..GRAPH_WORDS as i32)
            .map(|i| 1000 * r + 10 * step + i)
            .collect()
    };
    let inputs = |b: &mut GraphBuffers, step: i32| {
        b.send.write(0, &values(env.rank, step)).unwrap();
        b.staging.write(0, &values(env.rank, step)).unwrap();
        barrier(&comm, backend);
    };
    let check = |b: &GraphBuffers, step: i32, what: &str| {
        comm.synchronize(Some(&stream)).unwrap();
        let sum: Vec<i32> = (0..GRAPH_WORDS as i32)
            .map(|i| (0..n).map(|r| 1000 * r + 10 * step + i).sum())
            .collect();
        assert_eq!(b.sum.to_vec::<i32>().unwrap(), sum, "{what}: allreduce");
        assert_eq!(
            b.ring_in.to_vec::<i32>().unwrap(),
            values(left, step),
            "{what}: ring"
        );
        if peers.2 {
            let mut got = [0i32; GRAPH_WORDS];
            inbox.read(0, &mut got).unwrap();
            assert_eq!(
                got.to_vec(),
                values(left, step),
                "{what}: put from rank {left}"
            );
        }
    };
    inputs(&mut b, 0);
    graph_calls(&comm, &mut b, &window, peers, &stream, false);
    check(&b, 0, "eager");
    let graph = common::cuda_graph::Graph::capture(&stream, |s| {
        graph_calls(&comm, &mut b, &window, peers, s, true)
    });
    for step in 1..=REPLAYS {
        inputs(&mut b, step);
        graph.launch(&stream);
        check(&b, step, &format!("replay {step}"));
    }
    drop(graph);
    barrier(&comm, backend); // no peer still writes into the window
    window.close().unwrap();
    comm.finalize().unwrap();
    comm.destroy().unwrap();
}
