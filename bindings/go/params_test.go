package ncore

import (
	"errors"
	"os"
	"sort"
	"strings"
	"testing"
)

// Parameters on the host backend (and NCCL older than 2.30): the NCCL_* and
// NCORE_* variables of the environment, read live; unknown names refused.
func TestParamsReadTheEnvironment(t *testing.T) {
	info, err := GetLibraryInfo()
	must(t, "GetLibraryInfo", err)
	if info.Backend == BackendNCCL && info.NCCLVersion >= 23000 {
		t.Skip("NCCL 2.30+ serves its own parameters")
	}
	t.Setenv("NCCL_GO_PARAM_TEST", "on")
	if v, err := Param("NCCL_GO_PARAM_TEST"); err != nil || v != "on" {
		t.Fatalf("Param = %q, %v", v, err)
	}
	keys, err := ParamKeys()
	must(t, "ParamKeys", err)
	var want []string
	for _, kv := range os.Environ() {
		name := strings.SplitN(kv, "=", 2)[0]
		if strings.HasPrefix(name, "NCCL_") || strings.HasPrefix(name, "NCORE_") {
			want = append(want, name)
		}
	}
	sort.Strings(want)
	if strings.Join(keys, ",") != strings.Join(want, ",") {
		t.Fatalf("ParamKeys = %v, want %v", keys, want)
	}
	long := strings.Repeat("z", 4000)
	t.Setenv("NCCL_GO_PARAM_LONG", long)
	if v, err := Param("NCCL_GO_PARAM_LONG"); err != nil || v != long {
		t.Fatalf("long Param: %d bytes, %v", len(v), err)
	}
	if _, err := Param("NCCL_NO_SUCH_PARAMETER"); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "no parameter") {
		t.Fatalf("unknown parameter: %v", err)
	}
	if _, err := Param("NCCL\x00X"); !errors.Is(err, ErrInvalid) {
		t.Fatalf("NUL in the key: %v", err)
	}
	must(t, "DumpParams", DumpParams())
}
