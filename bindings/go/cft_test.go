package ncore

import "testing"

// CFT on the host backend: the arguments are checked, then every call is
// refused naming NCCL 2.31 (one host has no compute fabric).
func TestCFTIsRefusedOnTheHostNamingNCCL231(t *testing.T) {
	runRanks(t, 2, rankOptions{}, func(t *testing.T, c *Communicator, rank int) {
		_, err := c.TeamCFT(CFTTeamMode(9))
		wantErr(t, "TeamCFT(9)", err, ErrInvalid, "mode: 9")
		_, err = c.TeamCFT(CFTTeamHierLSA)
		wantErr(t, "TeamCFT", err, ErrNotSupported, "NCCL 2.31")
		_, err = c.TeamCFTMultimem()
		wantErr(t, "TeamCFTMultimem", err, ErrNotSupported, "team_cft_multimem")
		mem := value[*DeviceMemory](t, "MemAlloc")(MemAlloc(BackendHost, 64))
		defer mem.Close()
		w := value[*Window](t, "RegisterWindow")(c.RegisterWindow(mem.Ptr(), WindowDefault))
		one := Team{NRanks: 1, Rank: 0, Stride: 1}
		_, err = w.MultimemLeInfo(65)
		wantErr(t, "MultimemLeInfo(65)", err, ErrInvalid, "offset")
		_, err = w.CFTLeInfo(1, one, 0)
		wantErr(t, "CFTLeInfo(1)", err, ErrInvalid, "peer_cft")
		_, err = w.PeerLeInfo(2, 0)
		wantErr(t, "PeerLeInfo(2)", err, ErrInvalid, "peer")
		_, err = w.MultimemLeInfo(0)
		wantErr(t, "MultimemLeInfo", err, ErrNotSupported, "NCCL 2.31")
		_, err = w.CFTLeInfo(0, one, 8)
		wantErr(t, "CFTLeInfo", err, ErrNotSupported, "cft_le_info")
		_, err = w.PeerLeInfo(1-rank, 64)
		wantErr(t, "PeerLeInfo", err, ErrNotSupported, "NCCL 2.31")
		must(t, "Close", w.Close())
		if CFTCapCFT|CFTCapMultimem != 3 || GinTypeEFAGDA != 5 || GinConnectionCustomStride != 3 {
			t.Fatalf("enum values: %d %d %d", CFTCapCFT|CFTCapMultimem, GinTypeEFAGDA, GinConnectionCustomStride)
		}
	})
}
