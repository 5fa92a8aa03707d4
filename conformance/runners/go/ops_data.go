package main

// Steps that move data: buffers, checks, p2p, collectives, one-sided and
// symmetric operations. Buffers are passed to the binding as
// ncore.DeviceElements with exactly the element counts the C runner passes,
// so that every argument check is the library's own (same status and
// message as C).

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"unsafe"

	"ncore.dev/ncore"
)

var dtypeNames = []string{"int8", "uint8", "int32", "uint32", "int64", "uint64",
	"float16", "float32", "float64", "bfloat16", "float8_e4m3", "float8_e5m2"}

// dtypeArg is a dtype argument: a name, raw:N, or float32 when absent.
func dtypeArg(s step, key string) ncore.DataType {
	name, ok := s.args[key]
	if !ok {
		return ncore.Float32
	}
	for i, n := range dtypeNames {
		if n == name {
			return ncore.DataType(i)
		}
	}
	if strings.HasPrefix(name, "raw:") {
		return ncore.DataType(atoi(name[4:]))
	}
	fmt.Fprintln(os.Stderr, "conformance: unknown dtype", name)
	os.Exit(2)
	return 0
}

// dtypeBytes is an element's size, 1 for an unknown type (as the C runner).
func dtypeBytes(dt ncore.DataType) int {
	if n, err := ncore.DataTypeSize(dt); err == nil {
		return n
	}
	return 1
}

// fillHex writes hex digits into out, zero-padding what they do not cover.
func fillHex(out []byte, text string) {
	b, _ := hex.DecodeString(text[:len(text)/2*2])
	for i := range out {
		if i < len(b) {
			out[i] = b[i]
		} else {
			out[i] = 0
		}
	}
}

// fillIota writes start + step*i + stride*rank, for integer and float32/64
// buffers (spec START:STEP:RANKSTRIDE).
func fillIota(out []byte, count int, dt ncore.DataType, spec string, rank int) {
	vals := []float64{0, 1, 0}
	for i, part := range strings.SplitN(spec, ":", 3) {
		if v, err := strconv.ParseFloat(part, 64); err == nil {
			vals[i] = v
		}
	}
	le := binary.LittleEndian
	for i := 0; i < count; i++ {
		v := vals[0] + vals[1]*float64(i) + vals[2]*float64(rank)
		switch dt {
		case ncore.Int8, ncore.Uint8:
			out[i] = byte(int64(v))
		case ncore.Int32, ncore.Uint32:
			le.PutUint32(out[4*i:], uint32(int64(v)))
		case ncore.Int64:
			le.PutUint64(out[8*i:], uint64(int64(v)))
		case ncore.Uint64:
			if v < 0 {
				le.PutUint64(out[8*i:], uint64(int64(v)))
			} else {
				le.PutUint64(out[8*i:], uint64(v))
			}
		case ncore.Float32:
			le.PutUint32(out[4*i:], math.Float32bits(float32(v)))
		case ncore.Float64:
			le.PutUint64(out[8*i:], math.Float64bits(v))
		default:
			fmt.Fprintf(os.Stderr, "conformance: iota is not defined for dtype %d\n", dt)
			os.Exit(2)
		}
	}
}

// fillInit is a buffer's init pattern as host bytes.
func fillInit(out []byte, count int, dt ncore.DataType, init string, rank int) {
	switch {
	case init == "" || init == "zero":
	case strings.HasPrefix(init, "iota:"):
		fillIota(out, count, dt, init[5:], rank)
	case strings.HasPrefix(init, "hex:"):
		fillHex(out, init[4:])
	case strings.HasPrefix(init, "rankhex:"):
		parts := strings.Split(init[8:], "/")
		part := ""
		if rank < len(parts) {
			part = parts[rank]
		}
		fillHex(out, part)
	default:
		fmt.Fprintln(os.Stderr, "conformance: unknown init", init)
		os.Exit(2)
	}
}

// opBuffer makes a named buffer: MemAlloc memory (default) or, with
// memory=plain, ordinary Go memory that the object table keeps alive (Go's
// heap does not move objects, so its address stays valid for the library).
func opBuffer(r *runner, s step) (result, error) {
	dt := dtypeArg(s, "dtype")
	count := int(s.int("count", 0))
	bytes := count * dtypeBytes(dt)
	host := make([]byte, max1(bytes))
	fillInit(host, count, dt, s.str("init"), r.rank)
	o := put(s.str("name"), kindBuffer)
	o.dtype, o.bytes = dt, bytes
	if s.str("memory") == "plain" {
		o.plain = host
		o.addr = uintptr(unsafe.Pointer(&host[0]))
		return result{}, nil
	}
	mem, err := ncore.MemAlloc(r.backend, max1(bytes))
	if err != nil {
		return result{}, err
	}
	o.addr = mem.Release().Addr
	err = ncore.MemcpyBytes(r.backend, ncore.DeviceElements(o.addr, bytes, ncore.Uint8),
		ncore.Host(host), bytes, ncore.MemcpyHostToDevice, nil)
	if err == nil {
		err = ncore.SynchronizeDefault(r.backend)
	}
	return result{}, err
}

// max1 is n, or 1 for 0 (no zero-size allocations).
func max1(n int) int {
	if n < 1 {
		return 1
	}
	return n
}

// opCheck reads a buffer back as hex.
func opCheck(r *runner, s step) (result, error) {
	o := objects[s.str("buffer")]
	if o == nil {
		return result{}, &ncore.Error{Status: ncore.StatusInternal}
	}
	elem := dtypeBytes(o.dtype)
	offset := int(s.int("offset", 0)) * elem
	bytes := o.bytes - offset
	if s.has("count") {
		bytes = int(s.int("count", 0)) * elem
	}
	host := make([]byte, bytes)
	kind := ncore.MemcpyDeviceToHost
	if o.plain != nil {
		kind = ncore.MemcpyHostToHost
	}
	err := ncore.SynchronizeDefault(r.backend)
	if err == nil {
		err = ncore.MemcpyBytes(r.backend, ncore.Host(host), ncore.DeviceElements(o.addr+uintptr(offset), bytes, ncore.Uint8),
			bytes, kind, nil)
	}
	if err == nil {
		err = ncore.SynchronizeDefault(r.backend)
	}
	if err != nil {
		return result{}, err
	}
	text := hex.EncodeToString(host)
	return result{hex: &text}, nil
}

// opSync waits for the default stream.
func opSync(r *runner, s step) (result, error) {
	return result{}, ncore.SynchronizeDefault(r.backend)
}

// bufferAddr is a buffer argument's address with `offset` (and, for the
// in-place collective forms, offsetKey x rank) elements applied; 0 for
// "null" or an unknown name.
func bufferAddr(r *runner, s step, key, offsetKey string) uintptr {
	o := objects[s.str(key)]
	if o == nil {
		return 0
	}
	offset := s.int("offset", 0)
	if offsetKey != "" {
		offset += s.int(offsetKey, 0) * int64(r.rank)
	}
	return o.addr + uintptr(offset*int64(dtypeBytes(o.dtype)))
}

// commArg is the communicator a step names (default world), borrowed.
func commArg(r *runner, s step) *ncore.Communicator {
	if name, ok := s.args["comm"]; ok {
		return ncore.CommunicatorFromHandle(handleOf(name))
	}
	return r.world
}

// redopArg is the redop argument.
func redopArg(s step) ncore.ReduceOp {
	op, ok := s.args["redop"]
	switch {
	case !ok || op == "sum":
		return ncore.Sum
	case op == "prod":
		return ncore.Prod
	case op == "max":
		return ncore.Max
	case op == "min":
		return ncore.Min
	case op == "avg":
		return ncore.Avg
	case strings.HasPrefix(op, "raw:"):
		return ncore.ReduceOp(atoi(op[4:]))
	case strings.HasPrefix(op, "custom:"):
		// A closed operator keeps the value it had: the runner remembers it.
		if o := objects[op[7:]]; o != nil {
			return o.redop
		}
		return -1
	}
	fmt.Fprintln(os.Stderr, "conformance: unknown op", op)
	os.Exit(2)
	return 0
}

// callStep is a collective's or point-to-point call's arguments, read from
// its step, for the calls of op_table_gen.go (generated from
// core/op_table.h).
type callStep struct {
	s                  step
	count, size        int
	dtype              ncore.DataType
	root, peer         int
	sendAddr, recvAddr uintptr
	stream             *ncore.Stream     // the runner's (nil outside a capture)
	config             *ncore.CollConfig // the step's `config` (nil: none)
}

// collConfigArg is a collective step's `config` object (nil without one):
// its fields by name, DefaultCollConfig's values for the rest.
func collConfigArg(s step) *ncore.CollConfig {
	text := s.str("config")
	if !s.has("config") || text == "null" {
		return nil
	}
	cfg := ncore.DefaultCollConfig()
	ints := map[string]*int32{"min_ctas": &cfg.MinCTAs, "max_ctas": &cfg.MaxCTAs,
		"nvls_ctas": &cfg.NVLSCTAs, "cga_cluster_size": &cfg.CGAClusterSize,
		"force_alg_selection": &cfg.ForceAlgSelection, "cta_policy": &cfg.CTAPolicy}
	for name, field := range ints {
		if v, ok := objectField(text, name); ok {
			*field = int32(parseInt(v))
		}
	}
	if v, ok := objectField(text, "user_profiler_tag"); ok {
		cfg.UserProfilerTag = uint64(parseInt(v))
	}
	if v, ok := objectField(text, "launch_completion_event"); ok {
		cfg.LaunchCompletionEvent = uintptr(parseInt(v))
	}
	if v, ok := objectField(text, "alg_selection"); ok {
		cfg.AlgSelection = v
	}
	return &cfg
}

// buffers describes the send and receive buffers (a point-to-point call's
// one buffer is the second) with the elements the call touches: count, or
// nranks * count where perRank, so that the binding's size checks pass and
// the library sees the C runner's arguments.
func (a callStep) buffers(sendPerRank, recvPerRank bool) (ncore.DeviceBuffer, ncore.DeviceBuffer) {
	elements := func(perRank bool) int {
		if perRank {
			return a.count * a.size
		}
		return a.count
	}
	return ncore.DeviceElements(a.sendAddr, elements(sendPerRank), a.dtype),
		ncore.DeviceElements(a.recvAddr, elements(recvPerRank), a.dtype)
}

// redop is the step's operator, read where one is taken.
func (a callStep) redop() ncore.ReduceOp { return redopArg(a.s) }

// opP2P runs a point-to-point row of the table (send, recv).
func opP2P(r *runner, s step) (result, error) {
	a := callStep{s: s, count: int(s.int("count", 0)), dtype: dtypeArg(s, "dtype"),
		peer: int(s.int("peer", 0)), recvAddr: bufferAddr(r, s, "buffer", ""), stream: r.stream}
	return result{}, p2pCalls[s.op](commArg(r, s), a)
}

// opCollective runs a collective row of the table.
func opCollective(r *runner, s step) (result, error) {
	c := commArg(r, s)
	a := callStep{s: s, count: int(s.int("count", 0)), dtype: dtypeArg(s, "dtype"),
		root: int(s.int("root", 0)), stream: r.stream, config: collConfigArg(s)}
	size, err := c.Size()
	if err != nil {
		size = 0
	}
	a.size = size
	a.sendAddr = bufferAddr(r, s, "send", "send_offset_per_rank")
	a.recvAddr = bufferAddr(r, s, "recv", "recv_offset_per_rank")
	return result{}, collectiveCalls[s.op](c, a)
}

// signalOptions are the reserved arguments of signal and put_signal.
func signalOptions(s step) *ncore.SignalOptions {
	return &ncore.SignalOptions{SignalIndex: int(s.int("signal_index", 0)),
		Context: int(s.int("context", 0)), Flags: uint32(s.int("flags", 0))}
}

func opSignal(r *runner, s step) (result, error) {
	return result{}, commArg(r, s).Signal(int(s.int("peer", 0)), signalOptions(s), r.stream)
}

// opWaitSignal parses descs "peer:0,op_count:2;peer:1" (fields absent take
// the descriptor defaults) and an optional struct_size.
func opWaitSignal(r *runner, s step) (result, error) {
	var descs []ncore.WaitSignalDesc
	for _, text := range strings.Split(s.str("descs"), ";") {
		if text == "" {
			continue
		}
		d := ncore.SignalsFrom(0, 1)
		if v, ok := objectField(text, "peer"); ok {
			d.Peer = atoi(v)
		}
		if v, ok := objectField(text, "op_count"); ok {
			d.OpCount = uint32(atoi(v))
		}
		if v, ok := objectField(text, "signal_index"); ok {
			d.SignalIndex = atoi(v)
		}
		if v, ok := objectField(text, "context"); ok {
			d.Context = atoi(v)
		}
		descs = append(descs, d)
	}
	opts := &ncore.WaitSignalOptions{StructSize: uint32(s.int("struct_size", 0))}
	return result{}, commArg(r, s).WaitSignalWith(descs, opts, r.stream)
}

func opPutSignal(r *runner, s step) (result, error) {
	src := ncore.DeviceElements(bufferAddr(r, s, "buffer", ""), int(s.int("count", 0)), dtypeArg(s, "dtype"))
	w := ncore.WindowFromHandle(handleOf(s.str("window")))
	return result{}, commArg(r, s).PutSignal(src, int(s.int("peer", 0)), w, int(s.int("window_offset", 0)),
		signalOptions(s), r.stream)
}

// plainAddr is a buffer's base address (symmetric put / get take no offset).
func plainAddr(s step) uintptr {
	if o := objects[s.str("buffer")]; o != nil {
		return o.addr
	}
	return 0
}

func opSymmetricPut(r *runner, s step) (result, error) {
	sym := ncore.SymmetricMemoryFromHandle(handleOf(s.str("sym")))
	src := ncore.DeviceElements(plainAddr(s), int(s.int("bytes", 0)), ncore.Uint8)
	return result{}, sym.Put(int(s.int("sym_offset", 0)), src, int(s.int("pe", 0)), r.stream)
}

func opSymmetricGet(r *runner, s step) (result, error) {
	sym := ncore.SymmetricMemoryFromHandle(handleOf(s.str("sym")))
	dst := ncore.DeviceElements(plainAddr(s), int(s.int("bytes", 0)), ncore.Uint8)
	return result{}, sym.Get(dst, int(s.int("sym_offset", 0)), int(s.int("pe", 0)), r.stream)
}
