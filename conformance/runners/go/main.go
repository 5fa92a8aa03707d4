// Command ncore-conformance-go runs this rank's part of a batch of
// conformance cases through the Go binding's public API (package ncore), as
// the C runner does (conformance/README.md): for each case of
// $NCORE_CONFORMANCE_PLAN_DIR/batch it makes the world communicator from the
// case's own unique id (batch.go), prints a header record, one canonical
// JSON line per step of plan.<rank>, releases everything the case made and
// prints an end record. tools/ncore-run gives it NCORE_RANK and NCORE_NRANKS.
package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"ncore.dev/ncore"
)

// runner is the state every step of a case sees.
type runner struct {
	rank, nranks int
	world        *ncore.Communicator
	backend      ncore.Backend
	timeout      time.Duration // the case's, for configs the runner makes
	// stream is the stream of the calls that take one: nil (the default
	// stream), or captureStream between capture_begin and capture_end
	// (capture.go).
	stream, captureStream *ncore.Stream
}

// result is what a step produced besides its error.
type result struct {
	value *int64  // an int value
	hex   *string // a check step's bytes
}

// intValue makes a result holding v.
func intValue(v int64) result { return result{value: &v} }

// boolValue makes a result holding 1 or 0.
func boolValue(b bool) result {
	if b {
		return intValue(1)
	}
	return intValue(0)
}

var out = bufio.NewWriter(os.Stdout)

// The runner's calls all come from the main goroutine, locked to the main
// OS thread. A CUDA device is current per OS thread: the world's device
// (Config.Device, made current by InitRank), the buffers' memory and the
// default stream that checks synchronise must be one. Unlocked, the
// goroutine moved between threads, and rank 1 of 2 GPUs allocated and
// synchronised on GPU 0 while its communicator ran on GPU 1
// (sendrecv_large_both_ways read zeros). As the binding's doc
// ("Devices and threads") says every Go program on NCCL must.
func init() { runtime.LockOSThread() }

func main() {
	dir := os.Getenv("NCORE_CONFORMANCE_PLAN_DIR")
	rank, errRank := strconv.Atoi(os.Getenv(ncore.EnvRank))
	nranks, errNRanks := strconv.Atoi(os.Getenv(ncore.EnvNRanks))
	if dir == "" || errRank != nil || errNRanks != nil {
		fail("run me with tools/ncore-run and NCORE_CONFORMANCE_PLAN_DIR")
	}
	cases, err := loadBatch(dir)
	if err != nil {
		fail(err.Error())
	}
	// Every plan is read and checked before the first case runs.
	plans := make([]*plan, len(cases))
	for i, c := range cases {
		if plans[i], err = loadPlan(filepath.Join(c, "plan."+strconv.Itoa(rank))); err != nil {
			fail(err.Error())
		}
		for _, s := range plans[i].steps {
			if ops[s.op] == nil {
				fail("unknown op " + s.op)
			}
		}
	}
	for i, c := range cases {
		id, err := caseUniqueID(c, rank)
		if err != nil {
			fail(err.Error())
		}
		runCase(plans[i], rank, nranks, id)
	}
}

// fail ends the batch, saying why.
func fail(why string) {
	out.Flush()
	fmt.Fprintln(os.Stderr, "conformance:", why)
	os.Exit(2)
}

// runCase runs one case: world, header, steps, release, end record.
func runCase(p *plan, rank, nranks int, id ncore.UniqueID) {
	if r := beginCase(p, rank, nranks, id); r != nil {
		for _, s := range p.steps {
			res, err := ops[s.op](r, s)
			printResult(p, r.rank, s, res, err)
		}
		releaseCapture(r)
		clearObjects(r.backend)
	}
	fmt.Fprintf(out, `{"case":"%s","rank":%d,"end":true}`+"\n", p.caseName, rank)
	out.Flush()
}

// rankDevice is the GPU this rank names for its communicators: local rank %
// devices on NCCL (ncore/launch.h's rule, as every runner does), -1 on the
// host.
func rankDevice() int {
	if b, err := ncore.BackendAuto.Resolve(); err != nil || b != ncore.BackendNCCL {
		return -1
	}
	count, err := ncore.DeviceCount(ncore.BackendNCCL)
	if err != nil || count < 1 {
		return -1
	}
	local, err := strconv.Atoi(os.Getenv("NCORE_LOCAL_RANK"))
	if err != nil {
		local, _ = strconv.Atoi(os.Getenv(ncore.EnvRank))
	}
	return local % count
}

var device = rankDevice()

// beginCase makes the case's world communicator and prints the header
// record: the world's size and this rank's LSA team, or why there is no
// world (then nil).
func beginCase(p *plan, rank, nranks int, id ncore.UniqueID) *runner {
	cfg := ncore.DefaultConfig()
	cfg.Timeout = time.Duration(p.timeoutMs) * time.Millisecond
	cfg.Device = device
	r := &runner{rank: rank, nranks: nranks, timeout: cfg.Timeout}
	var size, lsaRank, lsaSize int
	world, err := ncore.InitRank(nranks, id, rank, &cfg)
	if err == nil {
		r.world = world
		r.backend, err = world.Backend()
	}
	if err == nil {
		size, err = world.Size()
	}
	if err == nil {
		lsaRank, err = world.LSARank()
	}
	if err == nil {
		lsaSize, err = world.LSASize()
	}
	status, message := statusOf(err)
	var b strings.Builder
	fmt.Fprintf(&b, `{"case":"%s","rank":%d,"begin":true,"status":"%s","message":`, p.caseName, rank, status)
	writeJSONString(&b, message)
	if err == nil {
		fmt.Fprintf(&b, `,"nranks":%d,"lsa_rank":%d,"lsa_size":%d`, size, lsaRank, lsaSize)
	}
	b.WriteString("}\n")
	out.WriteString(b.String())
	out.Flush()
	if err != nil {
		if world != nil {
			world.Destroy()
		}
		return nil
	}
	o := put("world", kindComm)
	o.handle, o.owner = world.Handle(), world
	return r
}

// statusOf is an error's status name and message ("NCORE_OK" for nil).
func statusOf(err error) (ncore.Status, string) {
	if err == nil {
		return ncore.StatusOK, ""
	}
	var e *ncore.Error
	if errors.As(err, &e) {
		return e.Status, e.Message
	}
	return ncore.StatusInternal, err.Error()
}

// printResult writes the step's canonical line:
// {"case":..,"rank":..,"step":..,"op":..,"status":..,"message":..[,"value":..]}
func printResult(p *plan, rank int, s step, res result, err error) {
	status, message := statusOf(err)
	var b strings.Builder
	fmt.Fprintf(&b, `{"case":"%s","rank":%d,"step":%d,"op":"%s","status":"%s","message":`,
		p.caseName, rank, s.index, s.op, status)
	writeJSONString(&b, message)
	if err == nil && res.hex != nil {
		fmt.Fprintf(&b, `,"value":"%s"`, *res.hex)
	} else if err == nil && res.value != nil {
		fmt.Fprintf(&b, `,"value":%d`, *res.value)
	}
	b.WriteString("}\n")
	out.WriteString(b.String())
	out.Flush()
}

// writeJSONString escapes like the C runner: quote and backslash escaped,
// control characters as \u00XX, everything else as is.
func writeJSONString(b *strings.Builder, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20:
			fmt.Fprintf(b, `\u%04x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
}
