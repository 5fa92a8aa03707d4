package ncore

import "testing"

func TestCommunicatorControlOnTwoRanks(t *testing.T) {
	runRanks(t, 2, rankOptions{}, func(t *testing.T, c *Communicator, rank int) {
		p := value[CommProperties](t, "Properties")(c.Properties())
		if p.Rank != rank || p.NRanks != 2 || p.CUDADevice != -1 || !p.HostRMASupport || p.NLSATeams != 1 {
			t.Fatalf("Properties = %+v", p)
		}
		// ABI 1.2's fields on one host: no GIN, no CFT, no NCCL device
		// communicator; one hash for the communicator on both ranks.
		if p.GinConnectionType != GinConnectionNone || p.GinMinStride != 0 || len(p.AvailableGinTypes) != 0 ||
			p.DevCommRuntimeVersionSize != 0 || p.CFTSupport != CFTNo || p.CFTMulticastSupport != CFTNo ||
			p.CFTCountedSupport != CFTNo || p.CommHash == 0 {
			t.Fatalf("Properties (ABI 1.2 fields) = %+v", p)
		}
		hash := []uint64{p.CommHash}
		must(t, "Broadcast", c.Broadcast(Host(hash), Host(hash), 0, nil))
		must(t, "Synchronize", c.Synchronize(nil))
		if hash[0] != p.CommHash {
			t.Fatalf("rank 0's hash %x, this rank's %x", hash[0], p.CommHash)
		}
		// NCCL 2.31 / 2.32's config fields: the host backend takes and ignores them.
		cfg := DefaultConfig()
		cfg.Backend = value[Backend](t, "Backend")(c.Backend())
		cfg.LaunchOrderImplicit, cfg.NumRMASig, cfg.RMAEagerInit = 1, 2, 1
		cfg.HostCFTMode = HostCFTFallback
		cfg.NVLSHostMode = NVLSHostModeDisableTransport | NVLSHostModeDisableSymmetricMultimem
		twin := value[*Communicator](t, "Split")(c.Split(0, rank, &cfg))
		if tp := value[CommProperties](t, "Properties")(twin.Properties()); tp.CommHash == p.CommHash {
			t.Fatalf("a split has its parent's hash %x", tp.CommHash)
		}
		must(t, "Destroy", twin.Destroy())
		// NCCL 2.32's window flags: GinOnly registers (the host backend's
		// one-sided calls are its GIN), CFTCounted has no CFT here.
		mem := value[*DeviceMemory](t, "MemAlloc")(MemAlloc(BackendHost, 64))
		defer mem.Close()
		w := value[*Window](t, "RegisterWindow")(c.RegisterWindow(mem.Ptr(), WindowGinOnly))
		must(t, "Close", w.Close())
		_, err := c.RegisterWindow(mem.Ptr(), WindowCFTCounted)
		wantErr(t, "RegisterWindow(CFTCounted)", err, ErrNotSupported, "CFT_COUNTED")

		must(t, "Suspend", c.Suspend(SuspendMem))
		x := []int32{1}
		wantErr(t, "AllReduce while suspended", c.AllReduce(Host(x), Host(x), Sum, nil), ErrInvalidUsage, "suspended")
		must(t, "Resume", c.Resume())
		wantErr(t, "Resume again", c.Resume(), ErrInvalidUsage, "not suspended")
		total := value[uint64](t, "MemStat")(c.MemStat(MemStatGPUMemTotal))
		if persist := value[uint64](t, "MemStat")(c.MemStat(MemStatGPUMemPersist)); total == 0 || persist != total {
			t.Fatalf("MemStat total %d persist %d", total, persist)
		}

		// Grow: rank 0 alone, rank 1 joins with rank 0's id.
		color := 0
		if rank == 1 {
			color = SplitNoColor
		}
		alone := value[*Communicator](t, "Split")(c.Split(color, 0, nil))
		id := make([]byte, UniqueIDBytes)
		if alone != nil {
			gid := value[UniqueID](t, "GetUniqueID")(alone.GetUniqueID())
			copy(id, gid[:])
			_, err := alone.GetUniqueID()
			wantErr(t, "second GetUniqueID", err, ErrInvalidUsage, "not consumed")
		}
		must(t, "Broadcast id", c.Broadcast(Host(id), Host(id), 0, nil))
		var uid UniqueID
		copy(uid[:], id)
		var grown *Communicator
		if alone != nil {
			grown = value[*Communicator](t, "Grow")(alone.Grow(2, &uid, nil))
		} else {
			grown = value[*Communicator](t, "JoinGrow")(JoinGrow(2, uid, 1, hostConfig(20e9)))
		}
		if r := value[int](t, "Rank")(grown.Rank()); r != rank {
			t.Fatalf("grown rank %d, want %d", r, rank)
		}
		s := []int32{int32(rank + 1)}
		must(t, "AllReduce grown", grown.AllReduce(Host(s), Host(s), Sum, nil))
		if s[0] != 3 {
			t.Fatalf("grown sum %d", s[0])
		}
		must(t, "Destroy grown", grown.Destroy())

		must(t, "Revoke", c.Revoke())
		wantErr(t, "AllReduce after Revoke", c.AllReduce(Host(x), Host(x), Sum, nil), ErrInvalidUsage, "revoked")
		wantErr(t, "Revoke again", c.Revoke(), ErrInvalidUsage, "revoked")
	})
}
