//! The NCCL backend through device memory, on 1 and 2 GPUs: runs only where
//! NCCL and enough CUDA devices are present, and says why it skips elsewhere.

mod common;

use std::io::Write;

use common::{is_child, on_ranks_with};
use ncore::{
    Backend, Communicator, Config, DataType, DeviceMemory, RedOp, Stream, WaitSignalDesc,
    WindowFlags,
};

/// Why the NCCL tests cannot run here on `gpus` devices, if they cannot.
fn skip_reason(gpus: i32) -> Option<String> {
    if let Err(e) = Backend::Nccl.resolve() {
        return Some(format!("NCCL backend unavailable: {}", e.message()));
    }
    match ncore::device_count(Backend::Nccl) {
        Ok(n) if n >= gpus => None,
        Ok(n) => Some(format!("needs {gpus} CUDA devices, found {n}")),
        Err(e) => Some(format!("cannot count CUDA devices: {e}")),
    }
}

/// Runs `body` on `gpus` ranks of the NCCL backend, or says why it cannot.
fn on_gpus(name: &str, gpus: i32, body: fn(&ncore::LaunchEnv)) {
    if !is_child() {
        if let Some(reason) = skip_reason(gpus) {
            // Written past libtest's output capture, so the reason shows.
            let _ = writeln!(std::io::stderr(), "skipped {name}: {reason}");
            return;
        }
    }
    on_ranks_with(name, gpus as usize, "nccl", body);
}

#[test]
fn nccl_device_memory_on_one_gpu() {
    on_gpus("nccl_device_memory_on_one_gpu", 1, device_memory_body);
}

#[test]
fn nccl_device_memory_on_two_gpus() {
    on_gpus("nccl_device_memory_on_two_gpus", 2, device_memory_body);
}

/// allreduce on a stream, a window with put_signal / wait_signal (to the
/// next rank, or itself on one GPU), all in device memory.
fn device_memory_body(env: &ncore::LaunchEnv) {
    ncore::set_device(Backend::Nccl, env.rank).unwrap();
    let config = Config::new().backend(Backend::Nccl).timeout_ms(60_000);
    let comm = Communicator::from_launch_env(Some(&config)).unwrap();
    assert_eq!(comm.backend().unwrap(), Backend::Nccl);
    assert_eq!(comm.device().unwrap(), env.rank);
    let n = env.nranks;
    let peer = (env.rank + 1) % n;
    let from = (env.rank + n - 1) % n;
    let total: f32 = (1..=n).map(|r| r as f32).sum();

    // allreduce on device memory, on a stream of our own.
    let stream = Stream::new(Backend::Nccl).unwrap();
    let mut data = DeviceMemory::alloc(4 * 4, Backend::Nccl).unwrap();
    data.write(0, &[env.rank as f32 + 1.0; 4]).unwrap();
    let mut view = data.as_slice(DataType::FLOAT32);
    comm.allreduce_in_place(&mut view, 4, RedOp::SUM, Some(&stream))
        .unwrap();
    stream.synchronize().unwrap();
    assert_eq!(data.to_vec::<f32>().unwrap(), vec![total; 4]);

    // put_signal into the peer's window, from device memory.
    let inbox = DeviceMemory::alloc(4096, Backend::Nccl).unwrap();
    let window = comm
        .register_window(&inbox, WindowFlags::COLL_SYMMETRIC)
        .unwrap();
    let mut staging = DeviceMemory::alloc(8, Backend::Nccl).unwrap();
    staging
        .write(0, &[100 + env.rank as u32, 200 + env.rank as u32])
        .unwrap();
    let src = staging.as_slice(DataType::UINT32);
    comm.put_signal(&src, 2, peer, &window, 1, None).unwrap();
    comm.wait_signal(&[WaitSignalDesc::new(from, 1)], None)
        .unwrap();
    ncore::synchronize(None, Backend::Nccl).unwrap();
    let mut got = [0u32; 3];
    inbox.read(0, &mut got).unwrap();
    assert_eq!(&got[1..], &[100 + from as u32, 200 + from as u32]);
    assert!(window.peer_device_pointer(peer, 0).is_ok());

    window.close().unwrap();
    comm.finalize().unwrap();
    comm.destroy().unwrap();
}
