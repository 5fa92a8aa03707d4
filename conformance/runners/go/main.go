// Command ncore-conformance-go runs one rank's conformance plan through the
// Go binding's public API (package ncore) and prints one canonical JSON line
// per step, as conformance/README.md describes. tools/ncore-run gives it
// NCORE_RANK, NCORE_NRANKS and NCORE_UNIQUE_ID; conformance/run.py gives it
// NCORE_CONFORMANCE_PLAN_DIR, where plan.<rank> is.
package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"ncore.dev/ncore"
)

// runner is the state every step sees.
type runner struct {
	rank, nranks int
	world        *ncore.Communicator
	backend      ncore.Backend
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

func main() {
	dir, rank := os.Getenv("NCORE_CONFORMANCE_PLAN_DIR"), os.Getenv(ncore.EnvRank)
	if dir == "" || rank == "" {
		fmt.Fprintln(os.Stderr, "conformance: NCORE_CONFORMANCE_PLAN_DIR and NCORE_RANK must be set")
		os.Exit(2)
	}
	p, err := loadPlan(dir + "/plan." + rank)
	if err != nil {
		fmt.Fprintln(os.Stderr, "conformance:", err)
		os.Exit(2)
	}
	r, err := initWorld(p)
	if err != nil {
		fmt.Fprintln(os.Stderr, "conformance: init failed:", err)
		os.Exit(2)
	}
	for _, s := range p.steps {
		fn := ops[s.op]
		if fn == nil {
			fmt.Fprintln(os.Stderr, "conformance: unknown op", s.op)
			os.Exit(2)
		}
		res, err := fn(r, s)
		printResult(p, r.rank, s, res, err)
	}
	if r.world.IsValid() {
		r.world.Close()
	}
}

// initWorld creates the communicator "world" with the plan's timeout.
func initWorld(p *plan) (*runner, error) {
	cfg := ncore.DefaultConfig()
	cfg.Timeout = time.Duration(p.timeoutMs) * time.Millisecond
	world, err := ncore.FromEnv(&cfg)
	if err != nil {
		return nil, err
	}
	r := &runner{world: world}
	if r.rank, err = world.Rank(); err != nil {
		return nil, err
	}
	if r.nranks, err = world.Size(); err != nil {
		return nil, err
	}
	if r.backend, err = world.Backend(); err != nil {
		return nil, err
	}
	put("world", kindComm).handle = world.Handle()
	objects["world"].owner = world
	return r, nil
}

// printResult writes the step's canonical line:
// {"case":..,"rank":..,"step":..,"op":..,"status":..,"message":..[,"value":..]}
func printResult(p *plan, rank int, s step, res result, err error) {
	status, message := ncore.StatusOK, ""
	if err != nil {
		var e *ncore.Error
		if errors.As(err, &e) {
			status, message = e.Status, e.Message
		} else {
			status, message = ncore.StatusInternal, err.Error()
		}
	}
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
