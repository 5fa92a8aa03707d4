package ncore

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// Tests that need one process only.

func TestLoadedLibraryMatchesCompiledABI(t *testing.T) {
	must(t, "CheckABI", CheckABI())
	if LoadedABIVersion() != ABIVersion {
		t.Errorf("loaded ABI %d, compiled %d", LoadedABIVersion(), ABIVersion)
	}
	if parts := strings.Split(Version(), "."); len(parts) != 3 {
		t.Errorf("Version() = %q, want MAJOR.MINOR.PATCH", Version())
	}
}

func TestABIRuleRefusesAnotherMajorAndAnOlderMinor(t *testing.T) {
	for _, ok := range [][2]int{{10000, 10000}, {10100, 10000}, {LoadedABIVersion(), ABIVersion}} {
		if msg := abiMismatch(ok[0], ok[1]); msg != "" {
			t.Errorf("abiMismatch(%d, %d) = %q, want none", ok[0], ok[1], msg)
		}
	}
	want := "ncore: libncore.so has ABI version 10000, this binding was built against 10100: " +
		"the major versions must match and the library's minor must be at least the binding's"
	if got := abiMismatch(10000, 10100); got != want {
		t.Errorf("abiMismatch(10000, 10100) = %q, want %q", got, want)
	}
	if abiMismatch(20000, 10000) == "" {
		t.Error("abiMismatch(20000, 10000) accepted another major version")
	}
}

func TestSizedInitsTakeThisBindingsSize(t *testing.T) {
	defaults := DefaultConfig()
	cfg, err := defaults.toC()
	must(t, "toC", err)
	defer cfg.free()
	if got, want := uintptr(cfg.c.struct_size), unsafe.Sizeof(cfg.c); got != want {
		t.Errorf("config struct_size = %d, want this binding's %d", got, want)
	}
}

func TestErrorsMatchTheirStatusSentinel(t *testing.T) {
	err := error(&Error{Status: StatusClosed, Message: "ncore_send: comm: closed"})
	if !errors.Is(err, ErrClosed) || errors.Is(err, ErrRemote) {
		t.Fatalf("errors.Is does not follow the status: %v", err)
	}
	if ErrInvalid != ErrInvalidArgument {
		t.Fatal("ErrInvalid is not ErrInvalidArgument")
	}
	if got := StatusInvalidUsage.String(); got != "NCORE_ERR_INVALID_USAGE" {
		t.Errorf("StatusInvalidUsage.String() = %q", got)
	}
	if got := err.Error(); !strings.Contains(got, "NCORE_ERR_CLOSED") || !strings.Contains(got, "ncore_send: comm: closed") {
		t.Errorf("Error() = %q, want status and message", got)
	}
	sentinels := []*Error{ErrUnhandledCuda, ErrSystem, ErrInternal, ErrInvalidArgument, ErrInvalidUsage,
		ErrRemote, ErrInProgress, ErrNotSupported, ErrUnavailable, ErrClosed, ErrTimeout}
	for i, s := range sentinels {
		for j, o := range sentinels {
			if (i == j) != errors.Is(&Error{Status: s.Status, Message: "m"}, o) {
				t.Errorf("errors.Is(%v-error, %v) wrong", s.Status, o.Status)
			}
		}
	}
}

func TestDataTypesComeFromTheLibrary(t *testing.T) {
	sizes := map[DataType]int{Int8: 1, Uint8: 1, Int32: 4, Uint32: 4, Int64: 8, Uint64: 8,
		Float16: 2, Float32: 4, Float64: 8, BFloat16: 2, Float8E4M3: 1, Float8E5M2: 1}
	for dt, size := range sizes {
		if dt.Size() != size {
			t.Errorf("%v.Size() = %d, want %d", dt, dt.Size(), size)
		}
	}
	if Float32.String() != "float32" || BFloat16.String() != "bfloat16" {
		t.Errorf("names: %q %q", Float32.String(), BFloat16.String())
	}
	if DataType(99).Size() != 0 {
		t.Error("unknown type has a size")
	}
	dt, err := DataTypeFromTypestr("<f4")
	if err != nil || dt != Float32 {
		t.Errorf("<f4 -> %v, %v", dt, err)
	}
	_, err = DataTypeFromTypestr("<V2")
	wantErr(t, "typestr <V2", err, ErrInvalid)
	// Go element types map to the same types.
	if Host([]BFloat16Bits{1}).DataType() != BFloat16 || Host([]byte{1}).DataType() != Uint8 {
		t.Error("Go element types map to the wrong DataType")
	}
}

func TestUniqueIDRoundTripsThroughHex(t *testing.T) {
	id, err := NewUniqueID(BackendHost)
	must(t, "NewUniqueID", err)
	s := id.String()
	if len(s) != 256 {
		t.Fatalf("hex form has %d characters", len(s))
	}
	back, err := ParseUniqueID(strings.ToUpper(s))
	must(t, "ParseUniqueID", err)
	if back != id {
		t.Fatal("round trip changed the id")
	}
	_, err = ParseUniqueID(s[:10])
	wantErr(t, "short id", err, ErrInvalid, "256")
	_, err = ParseUniqueID(strings.Repeat("zz", 128))
	wantErr(t, "non-hex id", err, ErrInvalid, "hex")
	_, err = NewUniqueID(Backend(42))
	wantErr(t, "unknown backend", err, ErrInvalid, "backend")
}

func TestFromEnvNamesTheMissingVariable(t *testing.T) {
	for _, k := range []string{EnvRank, EnvNRanks, EnvUniqueID, "NCORE_LOCAL_RANK",
		"OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID", "RANK", "WORLD_SIZE"} {
		if v, ok := os.LookupEnv(k); ok {
			defer os.Setenv(k, v)
			os.Unsetenv(k)
		}
	}
	// No launcher: a job of one rank.
	comm, err := FromEnv(hostConfig(10 * time.Second))
	must(t, "FromEnv alone", err)
	if r, _ := comm.Rank(); r != 0 {
		t.Fatalf("alone: rank %d", r)
	}
	if n, _ := comm.Size(); n != 1 {
		t.Fatalf("alone: size %d", n)
	}
	must(t, "Destroy", comm.Destroy())
	t.Setenv(EnvRank, "0")
	t.Setenv(EnvNRanks, "two")
	_, err = FromEnv(nil)
	wantErr(t, "FromEnv bad nranks", err, ErrInvalid, "NCORE_NRANKS")
	t.Setenv(EnvNRanks, "1")
	t.Setenv(EnvUniqueID, "abc")
	_, err = FromEnv(nil)
	wantErr(t, "FromEnv bad id", err, ErrInvalid, "ncore_comm_init_from_env", "NCORE_UNIQUE_ID")
	os.Unsetenv(EnvRank)
	os.Unsetenv(EnvNRanks)
	os.Unsetenv(EnvUniqueID)
	// torchrun's names without its rendezvous address.
	t.Setenv("RANK", "1")
	t.Setenv("WORLD_SIZE", "2")
	_, err = FromEnv(nil)
	wantErr(t, "FromEnv torchrun without MASTER_ADDR", err, ErrUnavailable, "MASTER_ADDR")
}

func TestInitRankValidatesItsArguments(t *testing.T) {
	id, err := NewUniqueID(BackendHost)
	must(t, "NewUniqueID", err)
	_, err = InitRank(0, id, 0, hostConfig(time.Second))
	wantErr(t, "nranks 0", err, ErrInvalid, "ncore_comm_init_rank", "nranks")
	_, err = InitRank(2, id, 5, hostConfig(time.Second))
	wantErr(t, "rank 5 of 2", err, ErrInvalid, "rank")
	cfg := hostConfig(time.Second)
	cfg.Device = 3
	_, err = InitRank(1, id, 0, cfg)
	wantErr(t, "device 3 on host", err, ErrInvalid, "device")
}

func TestSingleRankCommunicatorLifecycle(t *testing.T) {
	id, err := NewUniqueID(BackendHost)
	must(t, "NewUniqueID", err)
	c, err := InitRank(1, id, 0, hostConfig(5*time.Second))
	must(t, "InitRank", err)
	if !c.IsValid() {
		t.Fatal("new communicator is not valid")
	}
	if b, err := c.Backend(); err != nil || b != BackendHost {
		t.Fatalf("Backend() = %v, %v", b, err)
	}
	x := []int32{1, 2, 3}
	must(t, "AllReduce on 1 rank", c.AllReduce(Host(x), Host(x), Sum, nil))
	if x[2] != 3 {
		t.Fatalf("1-rank allreduce changed data: %v", x)
	}
	must(t, "Synchronize (default stream)", c.Synchronize(nil))
	s, err := NewStream(BackendHost)
	must(t, "NewStream", err)
	must(t, "Synchronize (a stream)", c.Synchronize(s))
	must(t, "stream Close", s.Close())
	must(t, "Close", c.Close())
	must(t, "second Close", c.Close())
	if c.IsValid() {
		t.Fatal("closed communicator is valid")
	}
	_, err = c.Size()
	wantErr(t, "Size after Close", err, ErrClosed)
	wantErr(t, "AllReduce after Close", c.AllReduce(Host(x), Host(x), Sum, nil), ErrClosed)
	wantErr(t, "Synchronize after Close", c.Synchronize(nil), ErrClosed)
	must(t, "Abort after Close (idempotent)", c.Abort())
}

func TestInitAllDrivesRanksFromOneGoroutine(t *testing.T) {
	comms, err := InitAll(3, nil, hostConfig(10*time.Second))
	must(t, "InitAll", err)
	defer func() {
		for _, c := range comms {
			c.Close()
		}
	}()
	bufs := make([][]float32, 3)
	out := make([][]float32, 3)
	for r := range bufs {
		bufs[r] = []float32{float32(r), float32(10 * r)}
		out[r] = make([]float32, 2)
	}
	// Go slices queued in a group are staged through C memory and copied
	// back at GroupEnd.
	must(t, "group", Group(func() error {
		for r, c := range comms {
			if err := c.AllReduce(Host(bufs[r]), Host(out[r]), Sum, nil); err != nil {
				return err
			}
		}
		return nil
	}))
	for r := range out {
		if out[r][0] != 3 || out[r][1] != 30 {
			t.Errorf("rank %d got %v, want [3 30]", r, out[r])
		}
	}
	// In place inside a group: the staged copies must alias.
	must(t, "in-place group", Group(func() error {
		for r, c := range comms {
			if err := c.AllReduce(Host(bufs[r]), Host(bufs[r]), Max, nil); err != nil {
				return err
			}
		}
		return nil
	}))
	for r := range bufs {
		if bufs[r][0] != 2 || bufs[r][1] != 20 {
			t.Errorf("rank %d in place got %v, want [2 20]", r, bufs[r])
		}
	}
	for r, c := range comms {
		if got := value[int](t, "Rank")(c.Rank()); got != r {
			t.Errorf("comm %d has rank %d", r, got)
		}
	}
}

func TestGroupEndWithoutStartIsInvalidUsage(t *testing.T) {
	wantErr(t, "GroupEnd", GroupEnd(), ErrInvalidUsage, "ncore_group_end")
}

func TestMemoryAndStreamHelpersOnHost(t *testing.T) {
	b, err := BackendHost.Resolve()
	if err != nil || b != BackendHost {
		t.Fatalf("Resolve = %v, %v", b, err)
	}
	if n := value[int](t, "DeviceCount")(DeviceCount(BackendHost)); n != 1 {
		t.Errorf("DeviceCount(host) = %d", n)
	}
	if d := value[int](t, "CurrentDevice")(CurrentDevice(BackendHost)); d != -1 {
		t.Errorf("CurrentDevice(host) = %d", d)
	}
	wantErr(t, "SetDevice 3", SetDevice(BackendHost, 3), ErrInvalid)
	mem, err := MemAlloc(BackendHost, 64)
	must(t, "MemAlloc", err)
	s, err := NewStream(BackendHost)
	must(t, "NewStream", err)
	must(t, "Memset", Memset(BackendHost, mem.As(Uint8), 7, s))
	src := []int32{1, 2, 3, 4}
	must(t, "Memcpy in", Memcpy(BackendHost, mem.As(Int32), Host(src), s))
	back := make([]byte, 20)
	must(t, "Memcpy out", MemcpyBytes(BackendHost, Host(back), mem.As(Uint8), 20, MemcpyDefault, s))
	must(t, "Synchronize", s.Synchronize())
	if back[0] != 1 || back[12] != 4 || back[16] != 7 {
		t.Fatalf("copied bytes %v", back)
	}
	wantErr(t, "Memcpy too big", Memcpy(BackendHost, Host(make([]byte, 2)), mem.As(Uint8), s), ErrInvalid, "dst")
	_, err = MemAlloc(BackendHost, 0)
	wantErr(t, "MemAlloc 0", err, ErrInvalid, "size")
	must(t, "stream Close", s.Close())
	must(t, "stream second Close", s.Close())
	wantErr(t, "closed stream", s.Synchronize(), ErrClosed, "stream")
	must(t, "mem Close", mem.Close())
	must(t, "mem second Close", mem.Close())
}

func TestGoSlicesAreRefusedOnNCCL(t *testing.T) {
	// A communicator that claims NCCL: the refusal happens before any C call.
	fake := &Communicator{backend: BackendNCCL}
	_, err := bufferArgs(fake, "ncore_send", "buf", Host([]float32{1}).view(), false)
	wantErr(t, "slice on NCCL", err, ErrInvalid, "ncore_send: buf:", "device memory")
	if _, err := bufferArgs(fake, "ncore_send", "buf", DevicePtr{Addr: 4096, Bytes: 4}.As(Float32).view(), false); err != nil {
		t.Fatalf("device memory refused: %v", err)
	}
}

func TestLibraryInfoDescribesTheLibrary(t *testing.T) {
	t.Setenv("NCORE_BACKEND", "host")
	info, err := GetLibraryInfo()
	must(t, "GetLibraryInfo", err)
	if info.Version != Version() || info.ABIVersion != LoadedABIVersion() {
		t.Fatalf("version %q ABI %d, want %q %d", info.Version, info.ABIVersion, Version(), LoadedABIVersion())
	}
	if info.Backend != BackendHost || info.BackendReason != "NCORE_BACKEND=host" {
		t.Fatalf("backend %v (%q), want host (NCORE_BACKEND=host)", info.Backend, info.BackendReason)
	}
	if info.Features&(FeatureOneSided|FeatureRevoke) != FeatureOneSided|FeatureRevoke || (info.NCCLVersion == 0) != (info.NCCLPath == "") {
		t.Fatalf("features %#x, nccl %d %q", info.Features, info.NCCLVersion, info.NCCLPath)
	}
}

// The package's buffers travel by value without a heap allocation per call
// (viewOf reads them through a type switch); a type that embeds one is
// refused with a clear error rather than read through the interface.
func TestBuffersOfOtherTypesAreRefused(t *testing.T) {
	id, err := NewUniqueID(BackendHost)
	must(t, "NewUniqueID", err)
	c, err := InitRank(1, id, 0, hostConfig(5*time.Second))
	must(t, "InitRank", err)
	defer c.Close()
	type embedding struct{ HostBuffer }
	data := []float32{1, 2}
	foreign := embedding{Host(data)}
	err = c.AllReduce(foreign, foreign, Sum, nil)
	wantErr(t, "AllReduce", err, ErrInvalid, "ncore_allreduce: sendbuf:", "HostBuffer or DeviceBuffer")
	err = c.Send(foreign, 0, nil)
	wantErr(t, "Send", err, ErrInvalid, "ncore_send: buf:", "pass the field")
	err = Memcpy(BackendHost, Host(make([]float32, 2)), foreign, nil)
	wantErr(t, "Memcpy", err, ErrInvalid, "ncore_memcpy: src:")
	// The field itself, and a pointer to a buffer, are accepted.
	must(t, "AllReduce(field)", c.AllReduce(foreign.HostBuffer, foreign.HostBuffer, Sum, nil))
	buf := Host(data)
	must(t, "AllReduce(pointer)", c.AllReduce(&buf, &buf, Sum, nil))
	if data[0] != 1 || data[1] != 2 {
		t.Errorf("one-rank sum changed the data: %v", data)
	}
}
