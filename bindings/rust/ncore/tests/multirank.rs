//! Multi-rank tests on the host backend: each test runs its body on 2 or 4
//! processes started by ncore-run (see common/mod.rs).

mod common;

use common::{assert_error, on_ranks, world};
use ncore::{
    Backend, DataType, DevCommRequirements, DeviceMemory, DeviceSlice, ErrorKind, GinType,
    MultimemHandle, RedOp, ResourceRequirement, ShrinkFlags, SignalOptions, Team,
    TeamRequirement, WaitSignalDesc, WindowFlags, SPLIT_NOCOLOR,
};

#[test]
fn queries_on_two_ranks() {
    on_ranks("queries_on_two_ranks", 2, |env| {
        let comm = world();
        assert_eq!(comm.rank().unwrap(), env.rank);
        assert_eq!(comm.size().unwrap(), 2);
        assert_eq!(comm.device().unwrap(), -1);
        assert_eq!(comm.backend().unwrap(), Backend::Host);
        assert_eq!(comm.lsa_rank().unwrap(), env.rank);
        assert_eq!(comm.lsa_size().unwrap(), 2);
        assert_eq!(comm.gin_type().unwrap(), GinType::NONE);
        assert_eq!(comm.railed_gin_type().unwrap(), GinType::NONE);
        assert_eq!(comm.async_error().unwrap(), None);
        assert!(comm.is_valid());
        comm.finalize().unwrap(); // no rank leaves while another still queries
    });
}

/// CFT: the arguments are checked, then the host backend (no compute
/// fabric) refuses every call naming NCCL 2.31.
#[test]
fn cft_is_refused_on_the_host_naming_nccl_2_31() {
    on_ranks("cft_is_refused_on_the_host_naming_nccl_2_31", 2, |env| {
        let comm = world();
        assert_error(
            comm.team_cft(ncore::CftTeamMode(9)),
            ErrorKind::InvalidArgument,
            "mode: 9",
        );
        assert_error(
            comm.team_cft(ncore::CftTeamMode::HIER_LSA),
            ErrorKind::NotSupported,
            "NCCL 2.31",
        );
        assert_error(
            comm.team_cft_multimem(),
            ErrorKind::NotSupported,
            "team_cft_multimem",
        );
        let memory = DeviceMemory::alloc(64, Backend::Host).unwrap();
        let window = comm.register_window(&memory, WindowFlags::DEFAULT).unwrap();
        let one = Team {
            n_ranks: 1,
            rank: 0,
            stride: 1,
        };
        assert_error(
            window.multimem_le_info(65),
            ErrorKind::InvalidArgument,
            "offset",
        );
        assert_error(
            window.cft_le_info(1, one, 0),
            ErrorKind::InvalidArgument,
            "peer_cft",
        );
        assert_error(
            window.peer_le_info(2, 0),
            ErrorKind::InvalidArgument,
            "peer",
        );
        assert_error(
            window.multimem_le_info(0),
            ErrorKind::NotSupported,
            "NCCL 2.31",
        );
        assert_error(
            window.cft_le_info(0, one, 8),
            ErrorKind::NotSupported,
            "cft_le_info",
        );
        assert_error(
            window.peer_le_info(1 - env.rank, 64),
            ErrorKind::NotSupported,
            "NCCL 2.31",
        );
        assert_eq!((ncore::CftCap::CFT | ncore::CftCap::MULTIMEM).0, 3);
        assert_eq!(GinType::EFA_GDA.0, 5);
        assert_eq!(ncore::GinConnectionType::CUSTOM_STRIDE.0, 3);
        drop(window);
        comm.finalize().unwrap();
    });
}

/// Teams: on the host backend the LSA team is the world and the rail team
/// this rank alone; the conversions map members back, bad input is refused.
#[test]
fn teams_on_four_ranks() {
    on_ranks("teams_on_four_ranks", 4, |env| {
        let comm = world();
        let world_team = comm.team_world().unwrap();
        assert_eq!(
            world_team,
            Team {
                n_ranks: 4,
                rank: env.rank,
                stride: 1
            }
        );
        assert_eq!(comm.team_lsa().unwrap(), world_team);
        assert_eq!(
            comm.team_rail().unwrap(),
            Team {
                n_ranks: 1,
                rank: 0,
                stride: 4
            }
        );
        for member in 0..4 {
            assert_eq!(comm.team_rank_to_world(world_team, member).unwrap(), member);
            assert_eq!(comm.team_rank_to_lsa(world_team, member).unwrap(), member);
        }
        let evens = Team {
            n_ranks: 2,
            rank: env.rank / 2,
            stride: 2,
        };
        if env.rank % 2 == 0 {
            assert_eq!(comm.team_rank_to_world(evens, 1).unwrap(), 2);
        }
        assert_error(
            comm.team_rank_to_world(world_team, 4),
            ErrorKind::InvalidArgument,
            "team_rank",
        );
        let empty = Team {
            n_ranks: 0,
            rank: 0,
            stride: 1,
        };
        assert_error(
            comm.team_rank_to_world(empty, 0),
            ErrorKind::InvalidArgument,
            "team",
        );
        comm.finalize().unwrap();
    });
}

/// The rooted collectives' in-place twins: root's buffer holds the whole
/// (gather, scatter) or both sides (reduce); elsewhere the rank's own part.
#[test]
fn rooted_collectives_in_place_on_four_ranks() {
    on_ranks("rooted_collectives_in_place_on_four_ranks", 4, |env| {
        let comm = world();
        let r = env.rank;

        let mut red = [r as i64 + 1, 1];
        comm.reduce_in_place(&mut red, 2, RedOp::PROD, 1, None)
            .unwrap();
        if r == 1 {
            assert_eq!(red, [24, 1]);
        }

        // On root 2, block 2 already holds its own part; elsewhere the part.
        let mut g = if r == 2 {
            vec![-1, -1, -1, -1, 20, 21, -1, -1]
        } else {
            vec![10 * r, 10 * r + 1]
        };
        comm.gather_in_place(&mut g, 2, 2, None).unwrap();
        if r == 2 {
            assert_eq!(g, vec![0, 1, 10, 11, 20, 21, 30, 31]);
        } else {
            assert_eq!(g, vec![10 * r, 10 * r + 1]);
        }

        // Root 0 keeps its block in place; the others receive theirs.
        let mut sc = if r == 0 {
            vec![5u32, 6, 7, 8]
        } else {
            vec![0u32]
        };
        comm.scatter_in_place(&mut sc, 1, 0, None).unwrap();
        if r == 0 {
            assert_eq!(sc, vec![5, 6, 7, 8]);
        } else {
            assert_eq!(sc, vec![5 + r as u32]);
        }

        // Root's whole buffer is checked against nranks * count.
        if r == 3 {
            let mut short = vec![0i32; 3];
            assert_error(
                comm.gather_in_place(&mut short, 1, 3, None),
                ErrorKind::InvalidArgument,
                "recvbuf",
            );
        }
        comm.finalize().unwrap();
    });
}

#[test]
fn collectives_on_four_ranks() {
    on_ranks("collectives_on_four_ranks", 4, |env| {
        let comm = world();
        let r = env.rank;
        let n = 4;
        let mine = [r + 1, 10 * (r + 1)];
        let mut out = [0i32; 2];
        comm.allreduce(&mine, &mut out, 2, RedOp::SUM, None)
            .unwrap();
        assert_eq!(out, [10, 100]);
        let mut inplace = vec![r as f64; 3];
        comm.allreduce_in_place(&mut inplace, 3, RedOp::MAX, None)
            .unwrap();
        assert_eq!(inplace, vec![3.0; 3]);

        let mut b = [0u64; 2];
        comm.broadcast(&[7u64, 8], &mut b, 2, 2, None).unwrap();
        assert_eq!(b, [7, 8]);
        let mut b2 = [r as u8; 4];
        comm.broadcast_in_place(&mut b2, 4, 1, None).unwrap();
        assert_eq!(b2, [1; 4]);

        let mut red = [0i64; 1];
        comm.reduce(&[r as i64 + 1], &mut red, 1, RedOp::PROD, 0, None)
            .unwrap();
        if r == 0 {
            assert_eq!(red, [24]);
        }

        let mut gathered = vec![0u32; n];
        comm.allgather(&[r as u32 * 2], &mut gathered, 1, None)
            .unwrap();
        assert_eq!(gathered, vec![0, 2, 4, 6]);
        let mut ag = vec![0u32; n];
        ag[r as usize] = 100 + r as u32;
        comm.allgather_in_place(&mut ag, 1, None).unwrap();
        assert_eq!(ag, vec![100, 101, 102, 103]);

        let send: Vec<f32> = (0..n).map(|i| i as f32).collect();
        let mut rs = [0f32; 1];
        comm.reduce_scatter(&send, &mut rs, 1, RedOp::SUM, None)
            .unwrap();
        assert_eq!(rs, [4.0 * r as f32]);
        let mut rsi = send.clone();
        comm.reduce_scatter_in_place(&mut rsi, 1, RedOp::SUM, None)
            .unwrap();
        assert_eq!(rsi[r as usize], 4.0 * r as f32);

        let a2a: Vec<i32> = (0..n as i32).map(|j| 10 * r + j).collect();
        let mut a2a_out = vec![0i32; n];
        comm.alltoall(&a2a, &mut a2a_out, 1, None).unwrap();
        assert_eq!(
            a2a_out,
            (0..n as i32).map(|i| 10 * i + r).collect::<Vec<_>>()
        );

        let mut g = if r == 3 { vec![0i8; n] } else { Vec::new() };
        comm.gather(&[r as i8], &mut g, 1, 3, None).unwrap();
        if r == 3 {
            assert_eq!(g, vec![0, 1, 2, 3]);
        }
        let sc: Vec<i8> = if r == 0 { vec![5, 6, 7, 8] } else { Vec::new() };
        let mut sc_out = [0i8; 1];
        comm.scatter(&sc, &mut sc_out, 1, 0, None).unwrap();
        assert_eq!(sc_out, [5 + r as i8]);

        // Device-style views work for any dtype, including float16 bits.
        let mut mem = DeviceMemory::alloc(2 * 2, Backend::Host).unwrap();
        mem.write(0, &[0x00u8, 0x3c, 0x00, 0x40]).unwrap(); // 1.0, 2.0 as little-endian float16
        let mut view = mem.as_slice(DataType::FLOAT16);
        let copy = view;
        comm.allreduce(&copy, &mut view, 2, RedOp::SUM, None)
            .unwrap();
        let mut half = [0u8; 4];
        mem.read(0, &mut half).unwrap();
        assert_eq!(half, [0x00, 0x44, 0x00, 0x48]); // 4.0, 8.0

        // Errors: the binding's length checks and the library's own.
        assert_error(
            comm.allreduce(&mine, &mut out, 3, RedOp::SUM, None),
            ErrorKind::InvalidArgument,
            "sendbuf",
        );
        assert_error(
            comm.allgather(&mine, &mut out, 2, None),
            ErrorKind::InvalidArgument,
            "recvbuf",
        );
        assert_error(
            comm.broadcast(&mine, &mut out, 2, 9, None),
            ErrorKind::InvalidArgument,
            "root",
        );
        assert_error(
            comm.allreduce(&mine, &mut out, 2, RedOp::from_raw(77), None),
            ErrorKind::InvalidArgument,
            "op",
        );
        let f32s = [0f32; 2];
        assert_error(
            comm.allreduce(&f32s, &mut out, 2, RedOp::SUM, None),
            ErrorKind::InvalidArgument,
            "element type",
        );
        let null = DeviceSlice::null(DataType::INT32);
        assert_error(
            comm.allreduce(&null, &mut out, 2, RedOp::SUM, None),
            ErrorKind::InvalidArgument,
            "sendbuf",
        );
        comm.finalize().unwrap();
    });
}

#[test]
fn point_to_point_ring_on_two_ranks() {
    on_ranks("point_to_point_ring_on_two_ranks", 2, |env| {
        let comm = world();
        let peer = 1 - env.rank;
        let send = [env.rank as f32 + 0.5; 8];
        let mut recv = [0f32; 8];
        ncore::group(|g| {
            g.send(&comm, &send, 8, peer, None)?;
            g.recv(&comm, &mut recv, 8, peer, None)
        })
        .unwrap();
        assert_eq!(recv, [peer as f32 + 0.5; 8]);
        assert_error(
            comm.send(&send, 8, 7, None),
            ErrorKind::InvalidArgument,
            "peer",
        );
        assert_error(
            comm.recv(&mut recv, 9, peer, None),
            ErrorKind::InvalidArgument,
            "buf",
        );
        // A direct call inside the scoped group would outlive its buffer's
        // borrow: refused.
        let result = ncore::group(|_| comm.send(&send, 8, peer, None));
        assert_error(result, ErrorKind::InvalidUsage, "Group scope");
        comm.finalize().unwrap();
    });
}

#[test]
fn windows_and_signals_on_two_ranks() {
    on_ranks("windows_and_signals_on_two_ranks", 2, |env| {
        let comm = world();
        let peer = 1 - env.rank;
        let memory = DeviceMemory::alloc(8 * 4, Backend::Host).unwrap();
        let window = comm
            .register_window(&memory, WindowFlags::COLL_SYMMETRIC)
            .unwrap();
        assert_eq!(window.size().unwrap(), 32);
        assert_eq!(window.peer_size(peer).unwrap(), 32);
        assert_eq!(window.flags().unwrap(), WindowFlags::COLL_SYMMETRIC);
        assert_eq!(window.user_pointer().unwrap(), memory.as_ptr());
        assert!(window.native_handle().unwrap() != 0);
        assert!(
            window.peer_device_pointer(peer, 0).unwrap().is_some(),
            "ncore memory has peer pointers"
        );
        assert!(window.lsa_device_pointer(peer, 4).unwrap().is_some());
        assert!(
            window.lsa_multimem_device_pointer(0).unwrap().is_none(),
            "no multimem on the host"
        );
        assert_error(window.peer_size(5), ErrorKind::InvalidArgument, "peer");

        let data = [env.rank * 100 + 1, env.rank * 100 + 2];
        comm.put_signal(&data, 2, peer, &window, 3, None).unwrap();
        comm.wait_signal(&[WaitSignalDesc::new(peer, 1)], None)
            .unwrap();
        let mut got = [0i32; 8];
        memory.read(0, &mut got).unwrap();
        assert_eq!(&got[3..5], &[peer * 100 + 1, peer * 100 + 2]);

        comm.signal(peer, None).unwrap();
        comm.signal(peer, None).unwrap();
        comm.wait_signal(&[WaitSignalDesc::new(peer, 2)], None)
            .unwrap();

        assert_error(
            comm.put_signal(&data, 2, peer, &window, 7, None),
            ErrorKind::InvalidArgument,
            "peer_window",
        );
        assert_error(comm.signal(9, None), ErrorKind::InvalidArgument, "peer");
        let reserved = SignalOptions {
            flags: 1,
            ..SignalOptions::default()
        };
        assert_error(
            comm.signal_with(peer, reserved, None),
            ErrorKind::InvalidArgument,
            "flags",
        );
        assert_error(comm.wait_signal(&[], None), ErrorKind::InvalidArgument, "");
        assert_error(
            comm.wait_signal(&[WaitSignalDesc::new(peer, 0)], None),
            ErrorKind::InvalidArgument,
            "op_count",
        );
        assert_error(
            comm.wait_signal_versioned(&[WaitSignalDesc::new(peer, 1)], 2, None),
            ErrorKind::InvalidArgument,
            "struct_size",
        );

        window.close().unwrap();
        window.close().unwrap(); // idempotent
        assert!(!window.is_valid());
        assert_error(window.size(), ErrorKind::Closed, "");
        assert_error(
            comm.put_signal(&data, 2, peer, &window, 0, None),
            ErrorKind::Closed,
            "",
        );
        comm.finalize().unwrap();
    });
}

#[test]
fn resources_on_two_ranks() {
    on_ranks("resources_on_two_ranks", 2, |env| {
        let comm = world();
        let data = vec![1.0f32; 16];
        let registered = comm.register_buffer(&data).unwrap();
        assert_eq!(registered.size().unwrap(), 64);
        assert_eq!(registered.pointer().unwrap() as *const f32, data.as_ptr());
        assert!(registered.native_handle().unwrap() != 0);
        registered.close().unwrap();
        assert_error(registered.size(), ErrorKind::Closed, "");

        let op = comm.create_pre_mul_sum(0.5f32).unwrap();
        assert_eq!(op.dtype().unwrap(), DataType::FLOAT32);
        let mut out = [0f32; 2];
        comm.allreduce(&[2.0f32, 4.0], &mut out, 2, op.op().unwrap(), None)
            .unwrap();
        assert_eq!(out, [2.0, 4.0]);
        let op_value = op.op().unwrap();
        let mut ints = [0i32; 2];
        assert_error(
            comm.allreduce(&[1i32, 2], &mut ints, 2, op_value, None),
            ErrorKind::InvalidArgument,
            "",
        );
        op.close().unwrap();
        assert_error(op.op(), ErrorKind::Closed, "");
        assert_error(
            comm.allreduce(&[2.0f32, 4.0], &mut out, 2, op_value, None),
            ErrorKind::Closed,
            "",
        );

        let mut scalar = DeviceMemory::alloc(8, Backend::Host).unwrap();
        scalar.write(0, &[3.0f64]).unwrap();
        let device_op = comm
            .create_pre_mul_sum_device(&scalar, DataType::FLOAT64)
            .unwrap();
        let mut dout = [0f64; 1];
        comm.allreduce(&[1.0f64], &mut dout, 1, device_op.op().unwrap(), None)
            .unwrap();
        assert_eq!(dout, [6.0]);
        assert_error(
            comm.create_pre_mul_sum_bytes(&[0u8; 2], DataType::FLOAT32),
            ErrorKind::InvalidArgument,
            "scalar",
        );

        let dev = comm.create_dev_comm(None).unwrap();
        let info = dev.info().unwrap();
        assert_eq!((info.rank, info.nranks, info.lsa_size), (env.rank, 2, 2));
        assert_eq!(info.gin_type, GinType::NONE);
        assert!(!dev.pointer().unwrap().is_null());
        let bad = DevCommRequirements {
            struct_size: 3,
            ..DevCommRequirements::default()
        };
        assert_error(
            comm.create_dev_comm(Some(&bad)),
            ErrorKind::InvalidArgument,
            "struct_size",
        );
        let gin = DevCommRequirements {
            gin_force_enable: true,
            ..DevCommRequirements::default()
        };
        assert_error(
            comm.create_dev_comm(Some(&gin)),
            ErrorKind::NotSupported,
            "",
        );

        // Team and resource requirements (ABI 1.2): checked naming the
        // field; the host backend has no device resources and no multimem.
        let lsa = comm.team_lsa().unwrap();
        let world_team = comm.team_world().unwrap();
        let lsa_barrier = ResourceRequirement::LsaBarrier {
            team: lsa,
            n_barriers: 0,
        };
        assert_error(
            comm.create_dev_comm_with(None, &[], &[lsa_barrier]),
            ErrorKind::InvalidArgument,
            "resources[0].n_barriers: 0",
        );
        let outside = TeamRequirement {
            team: Team {
                n_ranks: 3,
                ..world_team
            },
            multimem: false,
        };
        assert_error(
            comm.create_dev_comm_with(None, &[outside], &[]),
            ErrorKind::InvalidArgument,
            "not a team of this communicator",
        );
        let a2a = ResourceRequirement::LlA2a {
            n_blocks: 1,
            max_elements: 8,
            max_element_size: 8,
        };
        assert_error(
            comm.create_dev_comm_with(None, &[], &[a2a]),
            ErrorKind::NotSupported,
            "no device resources",
        );
        let multimem = TeamRequirement {
            team: lsa,
            multimem: true,
        };
        assert_error(
            comm.create_dev_comm_with(None, &[multimem], &[]),
            ErrorKind::NotSupported,
            "multimem",
        );
        let cft = DevCommRequirements {
            cft_caps: Some(8),
            ..DevCommRequirements::default()
        };
        assert_error(
            comm.create_dev_comm(Some(&cft)),
            ErrorKind::InvalidArgument,
            "cft_caps",
        );
        let world_requirement = TeamRequirement {
            team: world_team,
            multimem: false,
        };
        let teams = comm
            .create_dev_comm_with(None, &[world_requirement], &[])
            .unwrap();
        assert_eq!(teams.resource_handles().unwrap(), vec![]);
        assert_error(
            teams.multimem_handle(world_team),
            ErrorKind::InvalidArgument,
            "not requested with multimem",
        );
        teams.close().unwrap();
        let window_memory = DeviceMemory::alloc(64, Backend::Host).unwrap();
        let window = comm
            .register_window(&window_memory, WindowFlags::COLL_SYMMETRIC)
            .unwrap();
        let none = MultimemHandle {
            mc_base_pointer: None,
        };
        assert_eq!(window.multimem_device_pointer(none, 0).unwrap(), None);
        assert_error(
            window.multimem_device_pointer(none, 65),
            ErrorKind::InvalidArgument,
            "offset",
        );
        window.close().unwrap();

        let sym = comm.symmetric_alloc(64).unwrap();
        assert_eq!(sym.size().unwrap(), 64);
        assert!(sym.peer_pointer(1 - env.rank).unwrap().is_some());
        sym.put(8, &[env.rank as u32 + 40], 1 - env.rank, None)
            .unwrap();
        comm.allreduce_in_place(&mut [0u8], 1, RedOp::SUM, None)
            .unwrap(); // barrier
        let mut got = [0u32; 1];
        sym.get(&mut got, 8, env.rank, None).unwrap();
        assert_eq!(got, [(1 - env.rank) as u32 + 40]);
        assert_error(
            sym.put(60, &[0u64], 0, None),
            ErrorKind::InvalidArgument,
            "",
        );
        assert_error(sym.peer_pointer(2), ErrorKind::InvalidArgument, "");

        // Destroying the communicator closes everything made from it.
        comm.finalize().unwrap();
        comm.destroy().unwrap();
        assert_error(dev.info(), ErrorKind::Closed, "");
        assert_error(device_op.op(), ErrorKind::Closed, "");
        assert_error(sym.size(), ErrorKind::Closed, "");
        assert!(!sym.is_valid() && !dev.is_valid() && !device_op.is_valid());
        assert_error(comm.rank(), ErrorKind::Closed, "");
        assert_error(
            comm.allreduce(&[1.0f32], &mut out, 1, RedOp::SUM, None),
            ErrorKind::Closed,
            "",
        );
        comm.destroy().unwrap(); // idempotent
    });
}

#[test]
fn split_and_shrink_on_four_ranks() {
    on_ranks("split_and_shrink_on_four_ranks", 4, |env| {
        let comm = world();
        let half = comm
            .split(env.rank % 2, -env.rank, None)
            .unwrap()
            .expect("a colour");
        assert_eq!(half.size().unwrap(), 2);
        // key = -rank reverses the order inside each half.
        assert_eq!(half.rank().unwrap(), 1 - env.rank / 2);
        let mut sum = [0i32];
        half.allreduce(&[env.rank], &mut sum, 1, RedOp::SUM, None)
            .unwrap();
        assert_eq!(sum[0], if env.rank % 2 == 0 { 2 } else { 4 });
        let color = if env.rank == 0 { SPLIT_NOCOLOR } else { 1 };
        let rest = comm.split(color, 0, None).unwrap();
        assert_eq!(rest.is_none(), env.rank == 0);
        assert_error(comm.split(-5, 0, None), ErrorKind::InvalidArgument, "color");
        if env.rank != 3 {
            let shrunk = comm.shrink(&[3], None, ShrinkFlags::DEFAULT).unwrap();
            assert_eq!(shrunk.size().unwrap(), 3);
            assert_eq!(shrunk.rank().unwrap(), env.rank);
            assert_error(
                comm.shrink(&[env.rank], None, ShrinkFlags::DEFAULT),
                ErrorKind::InvalidArgument,
                "",
            );
        }
        // Rank 3 stays until the others are done with the communicator.
        comm.finalize().unwrap();
    });
}

#[test]
fn lifecycle_and_abort_on_two_ranks() {
    on_ranks("lifecycle_and_abort_on_two_ranks", 2, |env| {
        let comm = world();
        let peer = 1 - env.rank;
        comm.finalize().unwrap();
        assert_error(comm.finalize(), ErrorKind::InvalidUsage, "");
        comm.destroy().unwrap();
        assert!(!comm.is_valid());

        // An abort from another thread unblocks a wait on the communicator.
        let second = common::world();
        if env.rank == 0 {
            let aborter = second.abort_handle();
            let thread = std::thread::spawn(move || {
                std::thread::sleep(std::time::Duration::from_millis(300));
                aborter.abort().unwrap();
            });
            let result = second.wait_signal(&[WaitSignalDesc::new(peer, 1)], None);
            thread.join().unwrap();
            assert_error(result, ErrorKind::Closed, "");
            assert!(!second.is_valid());
        } else {
            std::thread::sleep(std::time::Duration::from_millis(1500));
        }
    });
}

#[test]
fn communicator_control_on_two_ranks() {
    on_ranks("communicator_control_on_two_ranks", 2, |env| {
        use ncore::{Communicator, Config, MemStat, SuspendFlags, UniqueId};
        let comm = world();
        let props = comm.properties().unwrap();
        assert_eq!((props.rank, props.nranks), (env.rank, 2));
        assert_eq!((props.cuda_device, props.nvml_device), (-1, -1));
        assert!(props.device_api_support && props.host_rma_support);
        assert!(!props.multimem_support);
        assert_eq!(props.n_lsa_teams, 1);
        // ABI 1.2's fields on one host: no GIN, no CFT, no NCCL device
        // communicator; a hash per communicator, equal on both ranks.
        assert_eq!(props.gin_connection_type, ncore::GinConnectionType::NONE);
        assert_eq!((props.gin_min_stride, props.dev_comm_runtime_version_size), (0, 0));
        assert!(props.available_gin_types.is_empty());
        assert_eq!(
            (props.cft_support, props.cft_multicast_support, props.cft_counted_support),
            (Some(false), Some(false), Some(false))
        );
        let mut hash = [props.comm_hash];
        comm.broadcast_in_place(&mut hash, 1, 0, None).unwrap();
        comm.synchronize(None).unwrap();
        assert!(props.comm_hash != 0 && hash[0] == props.comm_hash);
        // NCCL 2.31 / 2.32's config fields: the host backend takes and
        // ignores them.
        let config = Config::new()
            .backend(comm.backend().unwrap())
            .launch_order_implicit(true)
            .num_rma_sig(2)
            .rma_eager_init(true)
            .host_cft_mode(ncore::HostCftMode::FALLBACK)
            .nvls_host_mode(
                ncore::NvlsHostMode::DISABLE_TRANSPORT
                    | ncore::NvlsHostMode::DISABLE_SYMMETRIC_MULTIMEM,
            );
        let twin = comm.split(0, 0, Some(&config)).unwrap().unwrap();
        assert!(twin.properties().unwrap().comm_hash != props.comm_hash);
        drop(twin);
        // NCCL 2.32's window flags: GIN_ONLY registers (the host backend's
        // one-sided calls are its GIN), CFT_COUNTED has no CFT here.
        let memory = ncore::DeviceMemory::alloc(64, Backend::Host).unwrap();
        let window = comm
            .register_window(&memory, ncore::WindowFlags::GIN_ONLY)
            .unwrap();
        drop(window);
        assert_error(
            comm.register_window(&memory, ncore::WindowFlags::CFT_COUNTED),
            ErrorKind::NotSupported,
            "CFT_COUNTED",
        );

        // Suspend refuses communication until resume; memory statistics.
        comm.suspend(SuspendFlags::MEM).unwrap();
        let mut x = [1i32];
        assert_error(
            comm.allreduce_in_place(&mut x, 1, RedOp::SUM, None),
            ErrorKind::InvalidUsage,
            "suspended",
        );
        comm.resume().unwrap();
        assert_error(comm.resume(), ErrorKind::InvalidUsage, "not suspended");
        let total = comm.mem_stat(MemStat::GPU_MEM_TOTAL).unwrap();
        assert!(total > 0);
        assert_eq!(comm.mem_stat(MemStat::GPU_MEM_PERSIST).unwrap(), total);
        assert_eq!(comm.mem_stat(MemStat::GPU_MEM_SUSPEND).unwrap(), 0);

        // Grow: rank 0 alone, then rank 1 joins with rank 0's id.
        let alone = comm
            .split(if env.rank == 0 { 0 } else { SPLIT_NOCOLOR }, 0, None)
            .unwrap();
        let mut bytes = [0u8; ncore::UNIQUE_ID_BYTES];
        if let Some(a) = &alone {
            bytes = *a.get_unique_id().unwrap().as_bytes();
            assert_error(a.get_unique_id(), ErrorKind::InvalidUsage, "not consumed");
        }
        comm.broadcast_in_place(&mut bytes, ncore::UNIQUE_ID_BYTES, 0, None)
            .unwrap();
        let id = UniqueId::from_bytes(bytes);
        let config = Config::new().timeout_ms(20_000);
        let grown = match &alone {
            Some(a) => a.grow(2, Some(&id), None).unwrap(),
            None => Communicator::join_grow(2, &id, 1, Some(&config)).unwrap(),
        };
        assert_eq!(
            (grown.rank().unwrap(), grown.size().unwrap()),
            (env.rank, 2)
        );
        let mut s = [env.rank + 1];
        grown
            .allreduce_in_place(&mut s, 1, RedOp::SUM, None)
            .unwrap();
        assert_eq!(s, [3]);
        grown.destroy().unwrap();

        // Revoke: communication refused, a shrink still works.
        comm.revoke().unwrap();
        assert_error(
            comm.allreduce_in_place(&mut x, 1, RedOp::SUM, None),
            ErrorKind::InvalidUsage,
            "revoked",
        );
        assert_error(comm.revoke(), ErrorKind::InvalidUsage, "revoked");
        let copy = comm.shrink(&[], None, ShrinkFlags::DEFAULT).unwrap();
        assert_eq!(copy.size().unwrap(), 2);
    });
}

/// The `_config` twins: a configuration changes no result; a bad one and a
/// CUDA event on the host backend are refused naming the field.
#[test]
fn collective_configs_on_two_ranks() {
    on_ranks("collective_configs_on_two_ranks", 2, |env| {
        use ncore::{CollConfig, VendorValue};
        let comm = world();
        let r = env.rank as i32;
        let configs = [
            CollConfig::new(),
            CollConfig::new()
                .min_ctas(1)
                .max_ctas(4)
                .nvls_ctas(2)
                .cga_cluster_size(0)
                .cta_policy(1)
                .user_profiler_tag(7)
                .alg_selection("tree,ring")
                .force_alg_selection(false)
                .vendor_option(5, 1, VendorValue::Str("x".into()))
                .vendor_option(5, 2, VendorValue::Raw(9)),
            CollConfig::new().alg_selection("oneshot"),
        ];
        for config in &configs {
            let mut out = [0i32; 2];
            comm.allreduce_config(&[r + 1, 1], &mut out, 2, RedOp::SUM, None, config)
                .unwrap();
            assert_eq!(out, [3, 2]);
            let mut g = [0i32; 2];
            comm.allgather_config(&[r], &mut g, 1, None, config)
                .unwrap();
            assert_eq!(g, [0, 1]);
            let mut b = [r; 3];
            comm.broadcast_in_place_config(&mut b, 3, 1, None, config)
                .unwrap();
            assert_eq!(b, [1; 3]);
            let mut s = [0i32; 1];
            comm.scatter_config(&[10, 11], &mut s, 1, 0, None, config)
                .unwrap();
            assert_eq!(s, [10 + r]);
        }
        let mut buf = [0i32; 1];
        assert_error(
            comm.allreduce_in_place_config(
                &mut buf,
                1,
                RedOp::SUM,
                None,
                &CollConfig::new().force_alg_selection(true).vendor_option(
                    0,
                    1,
                    VendorValue::Int(1),
                ),
            ),
            ErrorKind::InvalidArgument,
            "config.vendor_options[0].vendor_id",
        );
        // SAFETY: never recorded: the host backend refuses every event.
        let event = unsafe { CollConfig::new().launch_completion_event(8 as *mut _) };
        assert_error(
            comm.allreduce_in_place_config(&mut buf, 1, RedOp::SUM, None, &event),
            ErrorKind::NotSupported,
            "config.launch_completion_event: a CUDA event",
        );
        comm.finalize().unwrap();
    });
}
