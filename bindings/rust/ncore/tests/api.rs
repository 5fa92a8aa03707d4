//! Single-process tests of the safe API: versions, types, ids, memory,
//! streams, errors and null/invalid handles, init_all.

mod common;

use common::assert_error;
use ncore::{
    Backend, BufferDesc, Communicator, Config, CustomRedOp, DataType, DevComm, DeviceMemory,
    DeviceType, ErrorKind, RedOp, RegisteredBuffer, Stream, SymmetricMemory, UniqueId,
    Window,
};

#[test]
fn version_matches_the_headers() {
    assert_eq!(ncore::abi_version(), ncore::sys::NCORE_ABI_VERSION);
    assert!(ncore::abi_compatible());
    let headers = format!(
        "{}.{}.{}",
        ncore::sys::NCORE_VERSION_MAJOR,
        ncore::sys::NCORE_VERSION_MINOR,
        ncore::sys::NCORE_VERSION_PATCH
    );
    assert_eq!(ncore::version(), headers);
}

#[test]
fn the_abi_was_checked_when_the_program_loaded() {
    assert!(ncore::abi_checked_at_load());
}

#[test]
fn abi_rule_refuses_another_major_and_an_older_minor() {
    assert_eq!(ncore::abi_mismatch(10000, 10000), None);
    assert_eq!(ncore::abi_mismatch(10100, 10000), None);
    assert_eq!(
        ncore::abi_mismatch(10000, 10100).as_deref(),
        Some(
            "ncore: libncore.so has ABI version 10000, this binding was built against 10100: \
             the major versions must match and the library's minor must be at least the binding's"
        )
    );
    assert!(ncore::abi_mismatch(20000, 10000).is_some());
}

#[test]
fn array_interface_resolves_in_c() {
    let data = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0];
    let desc =
        BufferDesc::from_array_interface(data.as_ptr() as usize, &[2, 3], None, "<f4", -1).unwrap();
    assert_eq!(desc.ptr as usize, data.as_ptr() as usize);
    assert_eq!(desc.count, 6);
    assert_eq!(desc.dtype, DataType::FLOAT32);
    assert_eq!(desc.device_type, DeviceType::CPU);
    assert_eq!(desc.device_id, -1);
    // Row-major strides in bytes are contiguous; transposed ones are not.
    assert!(BufferDesc::from_array_interface(0x1000, &[2, 3], Some(&[12, 4]), "<f4", -1).is_ok());
    assert_error(
        BufferDesc::from_array_interface(0x1000, &[2, 3], Some(&[4, 8]), "<f4", -1),
        ErrorKind::InvalidArgument,
        "ncore_buffer_resolve_array_interface: ",
    );
    assert_error(
        BufferDesc::from_array_interface(0x1000, &[2, 3], Some(&[4]), "<f4", -1),
        ErrorKind::InvalidArgument,
        "strides: holds 1 entries for a shape of 2",
    );
    assert_error(
        BufferDesc::from_array_interface(0x1000, &[4], None, "<c8", -1),
        ErrorKind::InvalidArgument,
        "typestr",
    );
}

/// DLPack's DLTensor (dlpack.h), for building one by hand.
#[repr(C)]
struct DlTensor {
    data: *mut std::ffi::c_void,
    device_type: i32,
    device_id: i32,
    ndim: i32,
    dtype_code: u8,
    dtype_bits: u8,
    dtype_lanes: u16,
    shape: *const i64,
    strides: *const i64,
    byte_offset: u64,
}

#[test]
fn dlpack_resolves_in_c() {
    let mut data = [0i32; 8];
    let shape = [2i64, 4];
    let tensor = DlTensor {
        data: data.as_mut_ptr().cast(),
        device_type: 1, // kDLCPU
        device_id: 0,
        ndim: 2,
        dtype_code: 0, // kDLInt
        dtype_bits: 32,
        dtype_lanes: 1,
        shape: shape.as_ptr(),
        strides: std::ptr::null(),
        byte_offset: 4,
    };
    // SAFETY: tensor and its shape live for the call.
    let desc = unsafe { BufferDesc::from_dlpack((&tensor as *const DlTensor).cast()) }.unwrap();
    assert_eq!(desc.ptr as usize, data.as_ptr() as usize + 4);
    assert_eq!((desc.count, desc.dtype), (8, DataType::INT32));
    assert_eq!((desc.device_type, desc.device_id), (DeviceType::CPU, -1));
    // SAFETY: NULL is refused by the library before it reads.
    assert_error(
        unsafe { BufferDesc::from_dlpack(std::ptr::null()) },
        ErrorKind::InvalidArgument,
        "ncore_buffer_resolve_dlpack: tensor: must not be NULL",
    );
}

#[test]
fn check_buffer_wants_the_communicators_device() {
    let config = Config::new().backend(Backend::Host);
    let comm = Communicator::init_all(1, None, Some(&config))
        .unwrap()
        .remove(0);
    let data = [0u8; 16];
    let host =
        BufferDesc::from_array_interface(data.as_ptr() as usize, &[16], None, "|u1", -1).unwrap();
    comm.check_buffer(&host, Some("sendbuf")).unwrap();
    let device = BufferDesc {
        device_type: DeviceType::CUDA,
        device_id: 0,
        ..host
    };
    assert_error(
        comm.check_buffer(&device, Some("sendbuf")),
        ErrorKind::InvalidArgument,
        "ncore_comm_check_buffer: sendbuf: buffer is on cuda:0 but the communicator is on cpu",
    );
}

#[test]
fn data_types_have_sizes_and_names() {
    assert_eq!(DataType::FLOAT32.size().unwrap(), 4);
    assert_eq!(DataType::BFLOAT16.size().unwrap(), 2);
    assert_eq!(DataType::FLOAT8_E4M3.name().unwrap(), "float8_e4m3");
    assert_eq!(DataType::from_name("int64"), Some(DataType::INT64));
    assert_eq!(DataType::from_name("complex64"), None);
    assert_error(
        DataType::from_raw(99).size(),
        ErrorKind::InvalidArgument,
        "dtype",
    );
    assert_eq!(DataType::from_typestr("<f4").unwrap(), DataType::FLOAT32);
    assert_error(
        DataType::from_typestr("<V2"),
        ErrorKind::InvalidArgument,
        "",
    );
    // DLPack code 2 is kDLFloat.
    assert_eq!(DataType::from_dlpack(2, 16, 1).unwrap(), DataType::FLOAT16);
    assert_error(
        DataType::from_dlpack(2, 32, 4),
        ErrorKind::InvalidArgument,
        "",
    );
}

#[test]
fn unique_id_round_trips_through_hex() {
    let id = UniqueId::new(Backend::Host).unwrap();
    assert_eq!(UniqueId::from_hex(&id.to_hex()).unwrap(), id);
    assert_error(
        UniqueId::from_hex("abc"),
        ErrorKind::InvalidArgument,
        "characters",
    );
    assert_error(
        UniqueId::from_hex(&"zz".repeat(128)),
        ErrorKind::InvalidArgument,
        "not hex",
    );
}

/// Started by no launcher, a program is a job of one rank (as an MPI or
/// torch program run alone); one started by a launcher that offers no way
/// to share the unique id is told what was looked for.
#[test]
fn from_env_without_a_launcher_is_one_rank() {
    if std::env::var_os("NCORE_RANK").is_some() {
        return; // under ncore-run: the launcher's job, not one alone
    }
    for name in ["OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID", "RANK"] {
        if std::env::var_os(name).is_some() {
            return;
        }
    }
    let comm = Communicator::from_env(Some(&Config::new().backend(Backend::Host))).unwrap();
    assert_eq!((comm.rank().unwrap(), comm.size().unwrap()), (0, 1));
}

#[test]
fn errors_carry_status_and_message() {
    let error = assert_error(
        Communicator::from_raw(0).rank(),
        ErrorKind::InvalidArgument,
        "ncore_comm_rank",
    );
    assert_eq!(
        error.status(),
        ncore::sys::ncore_status_NCORE_ERR_INVALID_ARGUMENT
    );
    assert!(error.to_string().contains("NCORE_ERR_INVALID_ARGUMENT"));
    let _: &dyn std::error::Error = &error;
    assert_eq!(ErrorKind::from_status(10), ErrorKind::Closed);
    assert_eq!(ErrorKind::Unknown(77).status(), 77);
}

#[test]
fn null_handles_are_rejected_not_undefined() {
    assert_error(
        Communicator::from_raw(0).destroy(),
        ErrorKind::InvalidArgument,
        "",
    );
    assert!(!Communicator::from_raw(0).is_valid());
    // SAFETY: the null handle names no memory.
    let window = unsafe { Window::from_raw(0) };
    assert_error(window.size(), ErrorKind::InvalidArgument, "");
    assert_error(window.close(), ErrorKind::InvalidArgument, "");
    // SAFETY: the null handle names no memory.
    let buffer = unsafe { RegisteredBuffer::from_raw(0) };
    assert_error(buffer.size(), ErrorKind::InvalidArgument, "");
    // SAFETY: as above.
    let op = unsafe { CustomRedOp::from_raw(0) };
    assert_error(op.op(), ErrorKind::InvalidArgument, "");
    assert_error(DevComm::from_raw(0).info(), ErrorKind::InvalidArgument, "");
    assert_error(
        SymmetricMemory::from_raw(0).size(),
        ErrorKind::InvalidArgument,
        "",
    );
    assert!(!SymmetricMemory::from_raw(0).is_valid());
}

#[test]
fn device_memory_copies_in_and_out() {
    let mut memory = DeviceMemory::alloc(64, Backend::Host).unwrap();
    assert_eq!(
        memory.to_vec::<u32>().unwrap(),
        vec![0; 16],
        "zeroed at allocation"
    );
    memory.write(8, &[1u32, 2, 3]).unwrap();
    let mut out = [0u32; 4];
    memory.read(4, &mut out).unwrap();
    assert_eq!(out, [0, 1, 2, 3]);
    assert_eq!(memory.as_slice(DataType::FLOAT64).len(), 8);
    assert_error(
        memory.write(60, &[1u64]),
        ErrorKind::InvalidArgument,
        "beyond",
    );
    memory.free().unwrap();
}

#[test]
fn memory_errors_come_from_the_library() {
    assert_error(
        DeviceMemory::alloc(0, Backend::Host),
        ErrorKind::InvalidArgument,
        "size",
    );
    let (ptr, backend) = DeviceMemory::alloc(16, Backend::Host).unwrap().into_raw();
    // SAFETY: ptr came from the allocator; the second free is the error case.
    unsafe {
        ncore::free_raw(ptr, backend).unwrap();
        assert_error(
            ncore::free_raw(ptr, backend),
            ErrorKind::InvalidArgument,
            "ptr",
        );
    }
}

#[test]
fn streams_and_devices_on_the_host_backend() {
    let stream = Stream::new(Backend::Host).unwrap();
    stream.synchronize().unwrap();
    ncore::synchronize(Some(&stream), Backend::Host).unwrap();
    stream.destroy().unwrap();
    assert_eq!(ncore::device_count(Backend::Host).unwrap(), 1);
    assert_eq!(ncore::current_device(Backend::Host).unwrap(), -1);
    ncore::set_device(Backend::Host, 0).unwrap();
    assert_error(
        ncore::set_device(Backend::Host, 3),
        ErrorKind::InvalidArgument,
        "device",
    );
    assert_eq!(Backend::Host.resolve().unwrap(), Backend::Host);
}

#[test]
fn synchronize_waits_on_a_stream_and_answers_closed_after_destroy() {
    let config = Config::new().backend(Backend::Host);
    let comm = Communicator::init_all(1, None, Some(&config))
        .unwrap()
        .remove(0);
    comm.synchronize(None).unwrap();
    let stream = Stream::new(Backend::Host).unwrap();
    comm.synchronize(Some(&stream)).unwrap();
    stream.destroy().unwrap();
    comm.destroy().unwrap();
    assert_error(
        comm.synchronize(None),
        ErrorKind::Closed,
        "ncore_comm_synchronize: ",
    );
}

#[test]
fn config_strings_with_nul_are_refused() {
    let config = Config::new().comm_name("a\0b");
    let id = UniqueId::new(Backend::Host).unwrap();
    assert_error(
        Communicator::init_rank(1, &id, 0, Some(&config)),
        ErrorKind::InvalidArgument,
        "comm_name",
    );
}

#[test]
fn init_rank_checks_arguments() {
    let id = UniqueId::new(Backend::Host).unwrap();
    assert_error(
        Communicator::init_rank(2, &id, 5, None),
        ErrorKind::InvalidArgument,
        "rank",
    );
    assert_error(
        Communicator::init_rank(0, &id, 0, None),
        ErrorKind::InvalidArgument,
        "nranks",
    );
}

#[test]
fn init_all_drives_two_ranks_from_one_thread() {
    let config = Config::new().backend(Backend::Host).timeout_ms(20_000);
    let comms = Communicator::init_all(2, None, Some(&config)).unwrap();
    assert_eq!(comms.len(), 2);
    assert_eq!(comms[1].rank().unwrap(), 1);
    let send = [[1.0f32, 2.0], [10.0, 20.0]];
    let mut recv = [[0f32; 2]; 2];
    // SAFETY: every buffer outlives the group, ended below.
    unsafe { ncore::group_start().unwrap() };
    for ((comm, s), r) in comms.iter().zip(&send).zip(recv.iter_mut()) {
        comm.allreduce(s, r, 2, RedOp::SUM, None).unwrap();
    }
    ncore::group_end().unwrap();
    assert_eq!(recv, [[11.0, 22.0], [11.0, 22.0]]);
    assert_error(ncore::group_end(), ErrorKind::InvalidUsage, "");
    for comm in &comms {
        comm.destroy().unwrap();
        comm.destroy().unwrap(); // idempotent
        assert_error(comm.size(), ErrorKind::Closed, "");
    }
}

#[test]
fn library_info_describes_the_library() {
    let info = ncore::library_info().expect("library_info");
    assert_eq!(info.version, ncore::version());
    assert_eq!(info.abi_version, ncore::abi_version());
    assert!(!info.backend_reason.is_empty());
    assert_eq!(info.nccl_version == 0, info.nccl_path.is_empty());
    match info.backend {
        // The host backend serves every call; every supported NCCL has
        // windows, so ncore's own one-sided path.
        Some(Backend::Host) => {
            for bit in [ncore::Features::ONE_SIDED, ncore::Features::REVOKE, ncore::Features::GROW,
                        ncore::Features::SUSPEND, ncore::Features::MEM_STAT,
                        ncore::Features::SCALABLE_INIT] {
                assert!(info.features.contains(bit), "{bit:?} missing from {:?}", info.features);
            }
        }
        Some(_) => assert!(info.features.contains(ncore::Features::ONE_SIDED)),
        None => assert_eq!(info.features, ncore::Features::default()),
    }
}

/// Parameters: on the host backend and NCCL older than 2.30, the `NCCL_*`
/// and `NCORE_*` variables of the environment (read here, never set: the
/// other tests run at the same time); from 2.30 on, NCCL's own list.
#[test]
fn params_read_the_environment_or_nccls_list() {
    let info = ncore::library_info().unwrap();
    let from_nccl = info.backend == Some(Backend::Nccl) && info.nccl_version >= 23000;
    let keys = ncore::param_keys().unwrap();
    for key in &keys {
        let value = ncore::param(key).unwrap();
        if !from_nccl {
            assert_eq!(Some(value), std::env::var(key).ok());
        }
    }
    if !from_nccl {
        let mut expected: Vec<String> = std::env::vars()
            .map(|(k, _)| k)
            .filter(|k| k.starts_with("NCCL_") || k.starts_with("NCORE_"))
            .collect();
        expected.sort();
        assert_eq!(keys, expected);
    }
    let missing = ncore::param("NCCL_NO_SUCH_PARAMETER");
    assert_error(missing, ErrorKind::InvalidArgument, "no parameter");
    assert_error(ncore::param("NCCL\0X"), ErrorKind::InvalidArgument, "NUL");
    ncore::dump_params().unwrap();
}
