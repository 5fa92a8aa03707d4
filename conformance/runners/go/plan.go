package main

// The line-based plan that conformance/run.py writes (conformance/README.md):
// a header (case, ranks, timeout_ms), then one step per line,
// `INDEX OP key=value ...`.

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// step is one plan line.
type step struct {
	index int
	op    string
	args  map[string]string
}

// plan is one rank's plan file.
type plan struct {
	caseName  string
	ranks     int
	timeoutMs int
	steps     []step
}

// loadPlan reads a plan file.
func loadPlan(path string) (*plan, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p := &plan{timeoutMs: 10000}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "case "):
			p.caseName = strings.TrimSpace(line[5:])
		case strings.HasPrefix(line, "ranks "):
			p.ranks = atoi(line[6:])
		case strings.HasPrefix(line, "timeout_ms "):
			p.timeoutMs = atoi(line[11:])
		case line != "" && line[0] >= '0' && line[0] <= '9':
			s, err := parseStep(line)
			if err != nil {
				return nil, fmt.Errorf("malformed plan %s: %v", path, err)
			}
			p.steps = append(p.steps, s)
		}
	}
	return p, sc.Err()
}

// parseStep reads `INDEX OP key=value ...`.
func parseStep(line string) (step, error) {
	fields := strings.Fields(line)
	if len(fields) < 2 {
		return step{}, fmt.Errorf("no op in %q", line)
	}
	s := step{index: atoi(fields[0]), op: fields[1], args: map[string]string{}}
	for _, kv := range fields[2:] {
		eq := strings.IndexByte(kv, '=')
		if eq < 0 {
			return step{}, fmt.Errorf("argument %q has no '='", kv)
		}
		s.args[kv[:eq]] = kv[eq+1:]
	}
	return s, nil
}

// has reports whether the step has the argument.
func (s step) has(key string) bool { _, ok := s.args[key]; return ok }

// str is an argument's text ("" when absent).
func (s step) str(key string) string { return s.args[key] }

// int is an integer argument with a default (C's strtoll(..., 0) forms).
func (s step) int(key string, dflt int64) int64 {
	v, ok := s.args[key]
	if !ok {
		return dflt
	}
	return parseInt(v)
}

// parseInt reads a leading integer like strtoll(text, NULL, 0): decimal,
// 0x hex or 0 octal, stopping at the first character that does not fit; a
// float such as "2.0" reads as 2.
func parseInt(text string) int64 {
	t := strings.TrimSpace(text)
	end := 0
	for end < len(t) && (t[end] == '-' || t[end] == '+' || t[end] == 'x' || t[end] == 'X' ||
		(t[end] >= '0' && t[end] <= '9') || (t[end] >= 'a' && t[end] <= 'f') || (t[end] >= 'A' && t[end] <= 'F')) {
		end++
	}
	for end > 0 {
		if v, err := strconv.ParseInt(t[:end], 0, 64); err == nil {
			return v
		}
		end--
	}
	return 0
}

// atoi is C's atoi: the leading decimal integer, else 0.
func atoi(text string) int {
	t := strings.TrimSpace(text)
	end := 0
	if end < len(t) && (t[end] == '-' || t[end] == '+') {
		end++
	}
	for end < len(t) && t[end] >= '0' && t[end] <= '9' {
		end++
	}
	v, _ := strconv.Atoi(t[:end])
	return v
}

// objectField is field's value inside an object text "k:v,k:v".
func objectField(object, field string) (string, bool) {
	for _, part := range strings.Split(object, ",") {
		if strings.HasPrefix(part, field+":") {
			return part[len(field)+1:], true
		}
	}
	return "", false
}
