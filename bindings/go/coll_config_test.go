package ncore

import "testing"

// The collectives' Config twins: a configuration changes no result; a bad
// one, and a CUDA event on the host backend, are refused naming the field.

func TestCollConfigChangesNoResult(t *testing.T) {
	runRanks(t, 2, rankOptions{}, func(t *testing.T, c *Communicator, rank int) {
		tuned := DefaultCollConfig()
		tuned.MinCTAs, tuned.MaxCTAs, tuned.NVLSCTAs, tuned.CGAClusterSize = 1, 4, 2, 0
		tuned.CTAPolicy, tuned.UserProfilerTag = 1, 7
		tuned.AlgSelection, tuned.ForceAlgSelection = "tree,ring", 0
		tuned.VendorOptions = []VendorOption{
			{VendorID: 5, OptionID: 1, Kind: VendorOptionString, StrValue: "x"},
			{VendorID: 5, OptionID: 2, Kind: VendorOptionRaw, RawValue: 9},
		}
		oneshot := DefaultCollConfig()
		oneshot.AlgSelection = "oneshot"
		defaults := DefaultCollConfig()
		for _, cfg := range []*CollConfig{nil, &defaults, &tuned, &oneshot} {
			r := int32(rank)
			out := make([]int32, 2)
			must(t, "AllReduceConfig", c.AllReduceConfig(Host([]int32{r + 1, 1}), Host(out), Sum, nil, cfg))
			if out[0] != 3 || out[1] != 2 {
				t.Fatalf("AllReduceConfig = %v", out)
			}
			g := make([]int32, 2)
			must(t, "AllGatherConfig", c.AllGatherConfig(Host([]int32{r}), Host(g), nil, cfg))
			if g[0] != 0 || g[1] != 1 {
				t.Fatalf("AllGatherConfig = %v", g)
			}
			s := make([]int32, 1)
			must(t, "ScatterConfig", c.ScatterConfig(Host([]int32{10, 11}), Host(s), 0, nil, cfg))
			if s[0] != 10+r {
				t.Fatalf("ScatterConfig = %v", s)
			}
		}
	})
}

func TestCollConfigRefusals(t *testing.T) {
	runRanks(t, 2, rankOptions{}, func(t *testing.T, c *Communicator, rank int) {
		buf := Host(make([]float32, 2))
		bad := DefaultCollConfig()
		bad.ForceAlgSelection = 2
		wantErr(t, "force 2", c.AllReduceConfig(buf, buf, Sum, nil, &bad), ErrInvalid,
			"ncore_allreduce_config: config.force_alg_selection: 2 is not 0 or 1")
		dup := DefaultCollConfig()
		dup.VendorOptions = []VendorOption{{VendorID: 1, OptionID: 1}, {VendorID: 1, OptionID: 1}}
		wantErr(t, "duplicate key", c.BroadcastConfig(buf, buf, 0, nil, &dup), ErrInvalid,
			"keys must be unique")
		event := DefaultCollConfig()
		event.LaunchCompletionEvent = 8
		wantErr(t, "event on host", c.AllReduceConfig(buf, buf, Sum, nil, &event), ErrNotSupported,
			"config.launch_completion_event: a CUDA event")
		must(t, "still in step", c.AllReduceConfig(buf, buf, Sum, nil, nil))
	})
}
