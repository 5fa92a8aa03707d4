package ncore

import (
	"testing"
	"time"
)

// Go ints that C's types cannot hold are refused with ErrInvalid naming the
// function and the argument, never truncated or wrapped:
// 1<<32+1 ranks is not one rank, root 1<<40 is not root 0, -1 bytes is not
// 2^64-1 bytes.

const cIntRange = "does not fit C's int [-2147483648, 2147483647]"

func oneRank(t *testing.T) *Communicator {
	t.Helper()
	id, err := NewUniqueID(BackendHost)
	must(t, "NewUniqueID", err)
	c, err := InitRank(1, id, 0, hostConfig(5*time.Second))
	must(t, "InitRank", err)
	t.Cleanup(func() { c.Close() })
	return c
}

func TestRankCountsBeyondACIntAreRefusedNotTruncated(t *testing.T) {
	id, err := NewUniqueID(BackendHost)
	must(t, "NewUniqueID", err)
	_, err = InitRank(1<<32+1, id, 0, hostConfig(time.Second))
	wantErr(t, "InitRank(1<<32+1)", err, ErrInvalid, "ncore_comm_init_rank: nranks: 4294967297 "+cIntRange)
	_, err = InitRank(1, id, -1<<32, hostConfig(time.Second))
	wantErr(t, "InitRank(rank -1<<32)", err, ErrInvalid, "ncore_comm_init_rank: rank: -4294967296 "+cIntRange)
	_, err = InitRankScalable(1, 1<<33, []UniqueID{id}, hostConfig(time.Second))
	wantErr(t, "InitRankScalable", err, ErrInvalid, "ncore_comm_init_rank_scalable: rank: 8589934592 ")
	_, err = InitAll(1<<32+1, nil, hostConfig(time.Second))
	wantErr(t, "InitAll", err, ErrInvalid, "ncore_comm_init_all: ndev: 4294967297 ")
	_, err = InitAll(1, []int{1 << 32}, hostConfig(time.Second))
	wantErr(t, "InitAll devlist", err, ErrInvalid, "ncore_comm_init_all: devlist[0]: 4294967296 ")
	_, err = JoinGrow(1<<31, id, 0, hostConfig(time.Second))
	wantErr(t, "JoinGrow", err, ErrInvalid, "ncore_comm_grow: nranks: 2147483648 ")
	cfg := hostConfig(time.Second)
	cfg.Device = 1 << 40
	_, err = InitRank(1, id, 0, cfg)
	wantErr(t, "Config.Device", err, ErrInvalid, "ncore_comm_config_t: device: 1099511627776 does not fit C's int32_t")
}

func TestRootsAndPeersBeyondACIntAreRefusedAndNothingMoves(t *testing.T) {
	c := oneRank(t)
	send, recv := []float32{1, 2}, []float32{7, 7}
	wantErr(t, "Broadcast root 1<<40", c.Broadcast(Host(send), Host(recv), 1<<40, nil), ErrInvalid,
		"ncore_broadcast: root: 1099511627776 "+cIntRange)
	wantErr(t, "Reduce root 1<<32", c.Reduce(Host(send), Host(recv), Sum, 1<<32, nil), ErrInvalid,
		"ncore_reduce: root: 4294967296 ")
	wantErr(t, "Gather root", c.Gather(Host(send), Host(recv), -1<<40, nil), ErrInvalid, "ncore_gather: root: ")
	wantErr(t, "Scatter root", c.Scatter(Host(send), Host(recv[:1]), 1<<32, nil), ErrInvalid, "ncore_scatter: root: ")
	if recv[0] != 7 || recv[1] != 7 {
		t.Fatalf("a refused collective wrote recv: %v", recv)
	}
	wantErr(t, "Send peer", c.Send(Host(send), 1<<32, nil), ErrInvalid, "ncore_send: peer: 4294967296 ")
	wantErr(t, "Recv peer", c.Recv(Host(recv), 1<<32, nil), ErrInvalid, "ncore_recv: peer: 4294967296 ")
	wantErr(t, "Signal peer", c.Signal(1<<32, nil, nil), ErrInvalid, "ncore_signal: peer: ")
	wantErr(t, "Signal index", c.Signal(0, &SignalOptions{SignalIndex: 1 << 32}, nil), ErrInvalid,
		"ncore_signal: signal_index: ")
	wantErr(t, "WaitSignal peer", c.WaitSignal([]WaitSignalDesc{SignalsFrom(0, 1), SignalsFrom(1<<32, 1)}, nil),
		ErrInvalid, "ncore_wait_signal: descs[1].peer: 4294967296 does not fit C's int32_t")
	_, err := c.Split(1<<32, 0, nil)
	wantErr(t, "Split color", err, ErrInvalid, "ncore_comm_split: color: 4294967296 ")
	_, err = c.Shrink([]int{1 << 33}, nil, ShrinkDefault)
	wantErr(t, "Shrink exclude", err, ErrInvalid, "ncore_comm_shrink: exclude_ranks[0]: 8589934592 ")
	_, err = c.MemStat(MemStat(1 << 32))
	wantErr(t, "MemStat", err, ErrInvalid, "ncore_comm_mem_stat: stat: ")
	wantErr(t, "SetDevice", SetDevice(BackendHost, 1<<32), ErrInvalid, "ncore_device_set: device: ")
	wantErr(t, "CheckBuffer device", c.CheckBuffer(ResolvedBuffer{DeviceID: 1 << 32}, "b"), ErrInvalid,
		"ncore_comm_check_buffer: device_id: ")
	_, err = ResolveArrayInterface(0, []int64{1}, nil, "<f4", 1<<32)
	wantErr(t, "ResolveArrayInterface", err, ErrInvalid, "ncore_buffer_resolve_array_interface: device_id: ")
	// The same values inside C's range reach the library, which names them.
	wantErr(t, "Broadcast root 1", c.Broadcast(Host(send), Host(recv), 1, nil), ErrInvalid, "ncore_broadcast: root")
}

func TestNegativeSizesAndOffsetsAreRefused(t *testing.T) {
	c := oneRank(t)
	_, err := MemAlloc(BackendHost, -1)
	wantErr(t, "MemAlloc(-1)", err, ErrInvalid, "ncore_mem_alloc: size: -1 is negative (C takes a size_t)")
	_, err = MemAlloc(BackendHost, 0)
	wantErr(t, "MemAlloc(0)", err, ErrInvalid, "ncore_mem_alloc: size")
	_, err = c.SymmetricAlloc(-1 << 62)
	wantErr(t, "SymmetricAlloc", err, ErrInvalid, "ncore_symmetric_alloc: size: -4611686018427387904 is negative")
	mem, err := MemAlloc(BackendHost, 64)
	must(t, "MemAlloc", err)
	defer mem.Close()
	_, err = c.RegisterWindow(DevicePtr{Addr: mem.Ptr().Addr, Bytes: -64}, WindowDefault)
	wantErr(t, "RegisterWindow", err, ErrInvalid, "ncore_register_window: size: -64 is negative")
	w, err := c.RegisterWindow(mem.Ptr(), WindowDefault)
	must(t, "RegisterWindow", err)
	defer w.Close()
	_, err = w.PeerSize(1 << 32)
	wantErr(t, "PeerSize", err, ErrInvalid, "ncore_window_peer_size: peer: 4294967296 ")
	_, _, err = w.LSADevicePointer(1<<32, 0)
	wantErr(t, "LSADevicePointer", err, ErrInvalid, "ncore_window_lsa_device_pointer: lsa_rank: ")
	_, _, err = w.PeerDevicePointer(0, -1)
	wantErr(t, "PeerDevicePointer", err, ErrInvalid, "ncore_window_peer_device_pointer: offset: -1 is negative")
	_, _, err = w.LSAMultimemDevicePointer(-2)
	wantErr(t, "LSAMultimemDevicePointer", err, ErrInvalid, "offset: -2 is negative")
	wantErr(t, "PutSignal offset", c.PutSignal(mem.As(Uint8), 0, w, -1, nil, nil), ErrInvalid,
		"ncore_put_signal: peer_window_offset: -1 is negative")
	_, err = c.RegisterBuffer(DevicePtr{Addr: mem.Ptr().Addr, Bytes: -1})
	wantErr(t, "RegisterBuffer", err, ErrInvalid, "ncore_register_buffer: size: -1 is negative")
	negative := DeviceElements(mem.Ptr().Addr, -4, Float32)
	wantErr(t, "AllReduce into a negative count", c.AllReduce(mem.As(Float32), negative, Sum, nil), ErrInvalid,
		"recvbuf: holds -4 elements, a negative count")
	wantErr(t, "Recv into a negative count", c.Recv(negative, 0, nil), ErrInvalid, "ncore_recv: buf: holds -4 elements")
	wantErr(t, "Memset a negative count", Memset(BackendHost, negative, 0, nil), ErrInvalid, "ncore_memset: dst: holds -4")
	wantErr(t, "MemcpyBytes -1", MemcpyBytes(BackendHost, mem.As(Uint8), mem.As(Uint8), -1, MemcpyDefault, nil),
		ErrInvalid, "ncore_memcpy: bytes: -1 is negative")
	sym, err := c.SymmetricAlloc(64)
	must(t, "SymmetricAlloc", err)
	defer sym.Close()
	wantErr(t, "Put offset", sym.Put(-8, mem.As(Uint8), 0, nil), ErrInvalid, "ncore_symmetric_put: dst_offset: -8 is negative")
	wantErr(t, "Get pe", sym.Get(mem.As(Uint8), 0, 1<<32, nil), ErrInvalid, "ncore_symmetric_get: pe: 4294967296 ")
	_, _, err = sym.PeerPointer(1 << 32)
	wantErr(t, "PeerPointer", err, ErrInvalid, "ncore_symmetric_peer_pointer: pe: ")
}
