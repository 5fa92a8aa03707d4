package main

// Steps about communicators and resources: queries, creation, close,
// is_valid, lifecycle, memory, and the ops table.

import (
	"encoding/binary"
	"encoding/hex"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"ncore.dev/ncore"
)

// intResult turns a query's (value, error) into a step result.
func intResult[T ~int | ~int32 | ~uint32](v T, err error) (result, error) {
	if err != nil {
		return result{}, err
	}
	return intValue(int64(v)), nil
}

func opCommQuery(r *runner, s step) (result, error) {
	c := commArg(r, s)
	switch s.str("what") {
	case "rank":
		return intResult(c.Rank())
	case "size":
		return intResult(c.Size())
	case "device":
		return intResult(c.Device())
	case "lsa_rank":
		return intResult(c.LSARank())
	case "lsa_size":
		return intResult(c.LSASize())
	case "backend":
		return intResult(c.Backend())
	case "async_error":
		return intResult(c.AsyncError())
	case "gin_type":
		return intResult(c.GinType())
	case "railed_gin_type":
		return intResult(c.RailedGinType())
	}
	return propertyQuery(c, s.str("what"))
}

// opTeam reads the world / lsa / rail team, or the one the step gives
// ("given": n_ranks, rank, stride); "what" reads a field or converts
// team_rank (to_world, to_lsa).
func opTeam(r *runner, s step) (result, error) {
	c := commArg(r, s)
	var team ncore.Team
	var err error
	switch s.str("team") {
	case "world":
		team, err = c.TeamWorld()
	case "lsa":
		team, err = c.TeamLSA()
	case "rail":
		team, err = c.TeamRail()
	case "cft":
		team, err = c.TeamCFT(ncore.CFTTeamMode(s.int("mode", 0)))
	case "cft_multimem":
		team, err = c.TeamCFTMultimem()
	case "given":
		team = ncore.Team{NRanks: int(s.int("n_ranks", 0)), Rank: int(s.int("rank", 0)), Stride: int(s.int("stride", 0))}
	default:
		return result{}, &ncore.Error{Status: ncore.StatusInternal}
	}
	if err != nil {
		return result{}, err
	}
	member := int(s.int("team_rank", 0))
	switch s.str("what") {
	case "n_ranks":
		return intValue(int64(team.NRanks)), nil
	case "rank":
		return intValue(int64(team.Rank)), nil
	case "stride":
		return intValue(int64(team.Stride)), nil
	case "to_world":
		return intResult(c.TeamRankToWorld(team, member))
	case "to_lsa":
		return intResult(c.TeamRankToLSA(team, member))
	}
	return result{}, &ncore.Error{Status: ncore.StatusInternal}
}

// propertyQuery answers the comm_query values that come from Properties.
func propertyQuery(c *ncore.Communicator, what string) (result, error) {
	p, err := c.Properties()
	if err != nil {
		return result{}, err
	}
	flag := func(b bool) int64 {
		if b {
			return 1
		}
		return 0
	}
	switch what {
	case "nvml_device":
		return intValue(int64(p.NVMLDevice)), nil
	case "device_api_support":
		return intValue(flag(p.DeviceAPISupport)), nil
	case "multimem_support":
		return intValue(flag(p.MultimemSupport)), nil
	case "n_lsa_teams":
		return intValue(int64(p.NLSATeams)), nil
	case "host_rma_support":
		return intValue(flag(p.HostRMASupport)), nil
	case "gin_connection_type":
		return intValue(int64(p.GinConnectionType)), nil
	case "gin_min_stride":
		return intValue(int64(p.GinMinStride)), nil
	case "available_gin_types":
		var mask uint64
		for _, t := range p.AvailableGinTypes {
			mask |= 1 << uint(t)
		}
		return intValue(int64(mask)), nil
	case "dev_comm_runtime_version_size":
		return intValue(int64(p.DevCommRuntimeVersionSize)), nil
	case "cft_support":
		return intValue(int64(p.CFTSupport)), nil
	case "cft_multicast_support":
		return intValue(int64(p.CFTMulticastSupport)), nil
	case "cft_counted_support":
		return intValue(int64(p.CFTCountedSupport)), nil
	}
	return result{}, &ncore.Error{Status: ncore.StatusInternal}
}

// opCommControl: revoke, suspend (flags), resume.
func opCommControl(r *runner, s step) (result, error) {
	c := commArg(r, s)
	switch s.op {
	case "revoke":
		return result{}, c.Revoke()
	case "suspend":
		return result{}, c.Suspend(ncore.SuspendFlags(s.int("flags", 0)))
	}
	return result{}, c.Resume()
}

// opMemStat: one memory statistic as the step's value.
func opMemStat(r *runner, s step) (result, error) {
	v, err := commArg(r, s).MemStat(ncore.MemStat(s.int("stat", 0)))
	if err != nil {
		return result{}, err
	}
	return intValue(int64(v)), nil
}

// bufferRange is the buffer argument as a range: the whole buffer, or
// `size` bytes of it.
func bufferRange(s step) ncore.DevicePtr {
	o := objects[s.str("buffer")]
	p := ncore.DevicePtr{}
	if o != nil {
		p = ncore.DevicePtr{Addr: o.addr, Bytes: o.bytes}
	}
	if s.has("size") {
		p.Bytes = int(s.int("size", 0))
	}
	return p
}

func opRegisterBuffer(r *runner, s step) (result, error) {
	b, err := commArg(r, s).RegisterBuffer(bufferRange(s))
	if err == nil {
		o := put(s.str("as"), kindRegisteredBuffer)
		o.handle, o.owner = b.Handle(), b
	}
	return result{}, err
}

func opRegisterWindow(r *runner, s step) (result, error) {
	p := bufferRange(s)
	w, err := commArg(r, s).RegisterWindow(p, ncore.WindowFlags(s.int("flags", 0)))
	if err == nil {
		o := put(s.str("as"), kindWindow)
		o.handle, o.owner, o.addr = w.Handle(), w, p.Addr
	}
	return result{}, err
}

func opWindowQuery(r *runner, s step) (result, error) {
	o := objects[s.str("window")]
	w := ncore.WindowFromHandle(handleOf(s.str("window")))
	peer, offset := int(s.int("peer", 0)), int(s.int("offset", 0))
	switch s.str("what") {
	case "size":
		return intResult(w.Size())
	case "peer_size":
		return intResult(w.PeerSize(peer))
	case "flags":
		return intResult(w.Flags())
	case "user_pointer_matches":
		p, err := w.UserPointer()
		return boolValue(o != nil && p == o.addr), err
	case "peer_pointer_null":
		_, ok, err := w.PeerDevicePointer(peer, offset)
		return boolValue(!ok), err
	case "lsa_pointer_null":
		_, ok, err := w.LSADevicePointer(peer, offset)
		return boolValue(!ok), err
	case "multimem_pointer_null":
		_, ok, err := w.LSAMultimemDevicePointer(offset)
		return boolValue(!ok), err
	// CFT logical endpoint addresses: the value is LeOffset; cft_le_offset's
	// team is the step's n_ranks, rank, stride and its member peer.
	case "multimem_le_offset":
		le, err := w.MultimemLeInfo(offset)
		return intValue(int64(le.LeOffset)), err
	case "peer_le_offset":
		le, err := w.PeerLeInfo(peer, offset)
		return intValue(int64(le.LeOffset)), err
	case "cft_le_offset":
		team := ncore.Team{NRanks: int(s.int("n_ranks", 0)), Rank: int(s.int("rank", 0)), Stride: int(s.int("stride", 0))}
		le, err := w.CFTLeInfo(peer, team, offset)
		return intValue(int64(le.LeOffset)), err
	}
	return result{}, &ncore.Error{Status: ncore.StatusInternal}
}

func opRegisteredBufferQuery(r *runner, s step) (result, error) {
	b := ncore.RegisteredBufferFromHandle(handleOf(s.str("handle")))
	switch s.str("what") {
	case "size":
		return intResult(b.Size())
	case "pointer_matches":
		p, err := b.Pointer()
		o := objects[s.str("buffer")]
		return boolValue(o != nil && p == o.addr), err
	}
	return result{}, &ncore.Error{Status: ncore.StatusInternal}
}

// closer is what close and is_valid need of every resource kind.
type closer interface {
	Close() error
	IsValid() bool
}

// resourceArg wraps the handle argument by the kind it was made as; an
// unknown name is a window (as in the C runner).
func resourceArg(s step) closer {
	o := objects[s.str("handle")]
	k, h := kindWindow, uint64(0)
	if o != nil {
		k, h = o.kind, o.handle
	}
	switch k {
	case kindRegisteredBuffer:
		return ncore.RegisteredBufferFromHandle(h)
	case kindCustomRedOp:
		return ncore.CustomRedOpFromHandle(h)
	case kindDevComm:
		return ncore.DevCommFromHandle(h)
	case kindSymmetric:
		return ncore.SymmetricMemoryFromHandle(h)
	case kindComm:
		return ncore.CommunicatorFromHandle(h)
	}
	return ncore.WindowFromHandle(h)
}

func opClose(r *runner, s step) (result, error) { return result{}, resourceArg(s).Close() }

func opIsValid(r *runner, s step) (result, error) { return boolValue(resourceArg(s).IsValid()), nil }

// scalarBytes is the PreMulSum scalar in the operator's own type; the 16- and
// 8-bit floats take their bits from scalar_bits (hex).
func scalarBytes(s step, dt ncore.DataType) []byte {
	v, _ := strconv.ParseFloat(s.str("scalar"), 64)
	b := make([]byte, 8)
	le := binary.LittleEndian
	switch dt {
	case ncore.Float32:
		le.PutUint32(b, math.Float32bits(float32(v)))
	case ncore.Float64:
		le.PutUint64(b, math.Float64bits(v))
	case ncore.Int32, ncore.Uint32:
		le.PutUint32(b, uint32(int32(v)))
	case ncore.Int64, ncore.Uint64:
		le.PutUint64(b, uint64(int64(v)))
	case ncore.Int8, ncore.Uint8:
		b[0] = byte(int(v))
	default:
		bits, _ := strconv.ParseUint(strings.TrimPrefix(s.str("scalar_bits"), "0x"), 16, 32)
		le.PutUint16(b, uint16(bits))
	}
	return b
}

func opCreatePreMulSum(r *runner, s step) (result, error) {
	dt := dtypeArg(s, "dtype")
	residence := ncore.ScalarHostImmediate
	if s.str("residence") == "device" {
		residence = ncore.ScalarDevice
	}
	var scalar ncore.Buffer = ncore.DeviceElements(0, 1, dt) // no scalar: NULL
	if s.has("scalar") {
		b := scalarBytes(s, dt)
		scalar = ncore.HostBytes(b, dt)
		if residence == ncore.ScalarDevice {
			mem, err := ncore.MemAlloc(r.backend, 8)
			if err != nil {
				return result{}, err
			}
			// Read at every use of the operator: freed with the case, under a
			// name no plan can spell (plans have no spaces).
			addr := mem.Release().Addr
			put(" scalar", kindMemory).addr = addr
			err = ncore.MemcpyBytes(r.backend, ncore.DeviceElements(addr, 8, ncore.Uint8), ncore.Host(b), 8,
				ncore.MemcpyHostToDevice, nil)
			if err == nil {
				err = ncore.SynchronizeDefault(r.backend)
			}
			if err != nil {
				return result{}, err
			}
			scalar = ncore.DeviceElements(addr, 1, dt)
		}
	}
	op, err := commArg(r, s).CreatePreMulSum(scalar, residence)
	if err != nil {
		return result{}, err
	}
	o := put(s.str("as"), kindCustomRedOp)
	o.handle, o.owner = op.Handle(), op
	o.redop, _ = op.Op()
	return result{}, nil
}

func opCustomRedOpQuery(r *runner, s step) (result, error) {
	return intResult(ncore.CustomRedOpFromHandle(handleOf(s.str("handle"))).DataType())
}

func opCreateDevComm(r *runner, s step) (result, error) {
	var req *ncore.DevCommRequirements
	if text := s.str("requirements"); s.has("requirements") && text != "null" {
		req = &ncore.DevCommRequirements{}
		field := func(name string) int32 {
			v, _ := objectField(text, name)
			return int32(atoi(v))
		}
		req.StructSize = uint32(field("struct_size"))
		req.LSAMultimem = field("lsa_multimem") != 0
		req.BarrierCount = field("barrier_count")
		req.LSABarrierCount = field("lsa_barrier_count")
		req.GinForceEnable = field("gin_force_enable") != 0
		req.GinSignalCount = field("gin_signal_count")
		req.GinCounterCount = field("gin_counter_count")
		req.GinConnectionType = ncore.GinConnectionType(field("gin_connection_type"))
		optional := func(name string) *int32 {
			if _, ok := objectField(text, name); !ok {
				return nil
			}
			v := field(name)
			return &v
		}
		req.GinCustomStride = optional("gin_custom_stride")
		req.CFTCaps = optional("cft_caps")
		req.CFTBarrierCount = optional("cft_barrier_count")
	}
	// One team requirement and one resource requirement at most.
	text := s.str("requirements")
	number := func(name string) int32 {
		v, _ := objectField(text, name)
		return int32(atoi(v))
	}
	comm := commArg(r, s)
	var teams []ncore.TeamRequirement
	var resources []ncore.ResourceRequirement
	if which, ok := objectField(text, "team_requirement"); ok {
		team, err := namedTeam(comm, which)
		if err != nil {
			return result{}, err
		}
		teams = append(teams, ncore.TeamRequirement{Team: team, Multimem: number("team_multimem") != 0})
	}
	if kind, ok := objectField(text, "resource"); ok {
		var resource ncore.ResourceRequirement
		if kind == "ll_a2a" {
			resource = ncore.LLA2A(number("n_blocks"), number("max_elements"), number("max_element_size"))
		} else {
			which, ok := objectField(text, "resource_team")
			if !ok {
				which = "lsa"
			}
			team, err := namedTeam(comm, which)
			if err != nil {
				return result{}, err
			}
			resource = ncore.LSABarrier(team, number("n_barriers"))
			if kind == "gin_barrier" {
				resource = ncore.GinBarrier(team, number("n_barriers"))
			}
		}
		resources = append(resources, resource)
	}
	var d *ncore.DevComm
	var err error
	if teams == nil && resources == nil {
		d, err = comm.CreateDevComm(req)
	} else {
		d, err = comm.CreateDevCommWith(req, teams, resources)
	}
	if err == nil {
		o := put(s.str("as"), kindDevComm)
		o.handle, o.owner = d.Handle(), d
	}
	return result{}, err
}

func opDevCommInfo(r *runner, s step) (result, error) {
	info, err := ncore.DevCommFromHandle(handleOf(s.str("handle"))).Info()
	if err != nil {
		return result{}, err
	}
	switch s.str("what") {
	case "rank":
		return intValue(int64(info.Rank)), nil
	case "nranks":
		return intValue(int64(info.NRanks)), nil
	case "lsa_rank":
		return intValue(int64(info.LSARank)), nil
	case "lsa_size":
		return intValue(int64(info.LSASize)), nil
	case "gin_type":
		return intValue(int64(info.GinType)), nil
	case "railed_gin_type":
		return intValue(int64(info.RailedGinType)), nil
	case "resource_count":
		return intValue(int64(info.ResourceCount)), nil
	}
	return result{}, &ncore.Error{Status: ncore.StatusInternal}
}

// namedTeam is world, lsa, rail, or outside (the world team with one member
// more than the communicator has).
func namedTeam(c *ncore.Communicator, which string) (ncore.Team, error) {
	switch which {
	case "lsa":
		return c.TeamLSA()
	case "rail":
		return c.TeamRail()
	}
	team, err := c.TeamWorld()
	if which == "outside" {
		team.NRanks++
	}
	return team, err
}

func opDevCommResourceHandle(r *runner, s step) (result, error) {
	switch s.str("what") {
	case "kind", "n_barriers", "has_slots":
	default:
		return result{}, &ncore.Error{Status: ncore.StatusInternal}
	}
	h, err := ncore.DevCommFromHandle(handleOf(s.str("handle"))).ResourceHandle(int(s.int("index", 0)))
	if err != nil {
		return result{}, err
	}
	switch s.str("what") {
	case "kind":
		return intValue(int64(h.Kind)), nil
	case "n_barriers":
		return intValue(int64(h.NBarriers)), nil
	}
	if h.NSlots > 0 {
		return intValue(1), nil
	}
	return intValue(0), nil
}

func opDevCommMultimemHandle(r *runner, s step) (result, error) {
	which := "world"
	if s.has("team") {
		which = s.str("team")
	}
	team, err := namedTeam(commArg(r, s), which)
	if err != nil {
		return result{}, err
	}
	if s.str("what") != "base_null" {
		return result{}, &ncore.Error{Status: ncore.StatusInternal}
	}
	h, err := ncore.DevCommFromHandle(handleOf(s.str("handle"))).MultimemHandle(team)
	if err != nil {
		return result{}, err
	}
	if h.MCBasePointer == 0 {
		return intValue(1), nil
	}
	return intValue(0), nil
}

func opSymmetricAlloc(r *runner, s step) (result, error) {
	sym, err := commArg(r, s).SymmetricAlloc(int(s.int("size", 0)))
	if err == nil {
		o := put(s.str("as"), kindSymmetric)
		o.handle, o.owner = sym.Handle(), sym
	}
	return result{}, err
}

func opSymmetricQuery(r *runner, s step) (result, error) {
	sym := ncore.SymmetricMemoryFromHandle(handleOf(s.str("sym")))
	if s.str("what") == "size" {
		return intResult(sym.Size())
	}
	_, ok, err := sym.PeerPointer(int(s.int("pe", 0)))
	return boolValue(!ok), err
}

// keepComm records a new communicator (nil: the null handle).
func keepComm(name string, c *ncore.Communicator) {
	o := put(name, kindComm)
	if c != nil {
		o.handle, o.owner = c.Handle(), c
	}
}

// opSplit: the parent's config, or with blocking=0 a non-blocking child
// with the case's timeout (still initialising is a success; settle waits).
func opSplit(r *runner, s step) (result, error) {
	var cfg *ncore.Config
	if s.str("blocking") != "" && s.int("blocking", 1) == 0 {
		c := ncore.DefaultConfig()
		c.Blocking = 0
		c.Timeout = r.timeout
		c.Device = device
		cfg = &c
	}
	c, err := commArg(r, s).Split(int(s.int("color", 0)), int(s.int("key", 0)), cfg)
	if err == nil {
		keepComm(s.str("as"), c)
	}
	return result{}, err
}

// opSettle polls the communicator's asynchronous state until it is not in
// progress (at most the case's timeout); the state is the step's status.
func opSettle(r *runner, s step) (result, error) {
	comm := commArg(r, s)
	deadline := time.Now().Add(r.timeout)
	for {
		state, err := comm.AsyncError()
		if err != nil {
			return result{}, err
		}
		if state == ncore.StatusInProgress && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
			continue
		}
		if state != ncore.StatusOK {
			return result{}, &ncore.Error{Status: state}
		}
		return result{}, nil
	}
}

func opShrink(r *runner, s step) (result, error) {
	var exclude []int
	if text := s.str("exclude"); text != "" {
		for _, part := range strings.Split(text, ",") {
			exclude = append(exclude, atoi(part))
		}
	}
	c, err := commArg(r, s).Shrink(exclude, nil, ncore.ShrinkFlags(s.int("flags", 0)))
	if err == nil {
		keepComm(s.str("as"), c)
	}
	return result{}, err
}

func opLifecycle(r *runner, s step) (result, error) {
	c := commArg(r, s)
	switch s.op {
	case "finalize":
		return result{}, c.Finalize()
	case "abort":
		return result{}, c.Abort()
	}
	return result{}, c.Destroy()
}

func opSynchronize(r *runner, s step) (result, error) {
	return result{}, commArg(r, s).Synchronize(r.stream)
}

func opGroup(r *runner, s step) (result, error) {
	if s.op == "group_start" {
		return result{}, ncore.GroupStart()
	}
	return result{}, ncore.GroupEnd()
}

func opMemAlloc(r *runner, s step) (result, error) {
	mem, err := ncore.MemAlloc(r.backend, int(s.int("size", 0)))
	if err == nil {
		put(s.str("as"), kindMemory).addr = mem.Release().Addr
	}
	return result{}, err
}

func opMemFree(r *runner, s step) (result, error) {
	var addr uintptr
	if o := objects[s.str("ptr")]; o != nil {
		addr = o.addr
	}
	err := ncore.MemFree(r.backend, addr)
	if o := objects[s.str("ptr")]; o != nil && err == nil {
		o.freed = true
	}
	return result{}, err
}

func opDtypeSize(r *runner, s step) (result, error) {
	return intResult(ncore.DataTypeSize(dtypeArg(s, "dtype")))
}

// opParam answers ncore.Param("key") as the hex of its text, or ("listed")
// 1 if ncore.ParamKeys names it.
func opParam(r *runner, s step) (result, error) {
	key := s.str("key")
	if s.str("what") == "listed" {
		keys, err := ncore.ParamKeys()
		if err != nil {
			return result{}, err
		}
		listed := int64(0)
		for _, k := range keys {
			if k == key {
				listed = 1
			}
		}
		return intValue(listed), nil
	}
	value, err := ncore.Param(key)
	if err != nil {
		return result{}, err
	}
	text := hex.EncodeToString([]byte(value))
	return result{hex: &text}, nil
}

// opLibraryInfo answers ncore.GetLibraryInfo; backend_reason as the hex of
// its bytes (the value channel of text), features masked by "mask"
// (default: all bits).
func opLibraryInfo(r *runner, s step) (result, error) {
	info, err := ncore.GetLibraryInfo()
	if err != nil {
		return result{}, err
	}
	switch s.str("what") {
	case "version_matches":
		return boolValue(info.Version == ncore.Version()), nil
	case "backend":
		return intValue(int64(info.Backend)), nil
	case "features":
		return intValue(int64(uint32(info.Features) & uint32(s.int("mask", -1)))), nil
	case "backend_reason":
		text := hex.EncodeToString([]byte(info.BackendReason))
		return result{hex: &text}, nil
	}
	return result{}, &ncore.Error{Status: ncore.StatusInternal}
}

func opSleep(r *runner, s step) (result, error) {
	time.Sleep(time.Duration(s.int("ms", 0)) * time.Millisecond)
	return result{}, nil
}

// opDie ends the process at once, without cleanup (a dead peer).
func opDie(r *runner, s step) (result, error) {
	out.Flush()
	os.Exit(0)
	return result{}, nil
}

// ops maps each plan op to its implementation.
var ops map[string]func(*runner, step) (result, error)

func init() {
	ops = map[string]func(*runner, step) (result, error){
		"buffer": opBuffer, "check": opCheck, "sync": opSync, "comm_query": opCommQuery, "team": opTeam,
		"group_start": opGroup, "group_end": opGroup,
		"register_buffer": opRegisterBuffer, "register_window": opRegisterWindow,
		"window_query": opWindowQuery, "registered_buffer_query": opRegisteredBufferQuery,
		"close": opClose, "is_valid": opIsValid, "signal": opSignal, "wait_signal": opWaitSignal,
		"put_signal": opPutSignal, "create_pre_mul_sum": opCreatePreMulSum,
		"custom_redop_query": opCustomRedOpQuery, "create_dev_comm": opCreateDevComm,
		"dev_comm_info": opDevCommInfo, "symmetric_alloc": opSymmetricAlloc,
		"dev_comm_resource_handle": opDevCommResourceHandle, "dev_comm_multimem_handle": opDevCommMultimemHandle,
		"symmetric_put": opSymmetricPut, "symmetric_get": opSymmetricGet,
		"symmetric_query": opSymmetricQuery, "split": opSplit, "settle": opSettle, "shrink": opShrink,
		"finalize": opLifecycle, "destroy": opLifecycle, "abort": opLifecycle,
		"revoke": opCommControl, "suspend": opCommControl, "resume": opCommControl,
		"mem_stat":    opMemStat,
		"synchronize": opSynchronize, "mem_alloc": opMemAlloc, "mem_free": opMemFree,
		"dtype_size": opDtypeSize, "library_info": opLibraryInfo, "param": opParam,
		"sleep": opSleep, "die": opDie,
		"capture_begin": opCaptureBegin, "capture_end": opCaptureEnd,
	}
	// The rows of core/op_table.h (op_table_gen.go).
	for name := range collectiveCalls {
		ops[name] = opCollective
	}
	for name := range p2pCalls {
		ops[name] = opP2P
	}
}
