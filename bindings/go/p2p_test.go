package ncore

import (
	"context"
	"errors"
	"syscall"
	"testing"
	"time"
)

// Point-to-point and failure behaviour on 2 ranks.

func TestSendRecvExchangeInAGroup(t *testing.T) {
	runRanks(t, 2, rankOptions{}, func(t *testing.T, c *Communicator, rank int) {
		peer := 1 - rank
		out := []int64{int64(rank) * 100, int64(rank)*100 + 1, int64(rank)*100 + 2}
		in := make([]int64, 3)
		must(t, "exchange", Group(func() error {
			if err := c.Send(Host(out), peer, nil); err != nil {
				return err
			}
			return c.Recv(Host(in), peer, nil)
		}))
		if in[0] != int64(peer)*100 || in[2] != int64(peer)*100+2 {
			t.Fatalf("rank %d received %v from %d", rank, in, peer)
		}
		// Outside a group, ordered: rank 0 sends first.
		msg := []float64{3.5}
		got := make([]float64, 1)
		if rank == 0 {
			must(t, "Send", c.Send(Host(msg), 1, nil))
			must(t, "Recv", c.Recv(Host(got), 1, nil))
		} else {
			must(t, "Recv", c.Recv(Host(got), 0, nil))
			got[0] *= 2
			must(t, "Send", c.Send(Host(got), 0, nil))
		}
		if rank == 0 && got[0] != 7 {
			t.Fatalf("round trip gave %v", got[0])
		}
	})
}

func TestSendToAPeerOutOfRangeNamesThePeer(t *testing.T) {
	runRanks(t, 2, rankOptions{}, func(t *testing.T, c *Communicator, rank int) {
		err := c.Send(Host([]float32{1}), 7, nil)
		wantErr(t, "Send to 7", err, ErrInvalid, "ncore_send", "peer", "7")
		err = c.Recv(Host([]float32{1}), -1, nil)
		wantErr(t, "Recv from -1", err, ErrInvalid, "peer")
	})
}

func TestMismatchedSendRecvSizesAreInvalidUsage(t *testing.T) {
	runRanks(t, 2, rankOptions{timeout: 10 * time.Second}, func(t *testing.T, c *Communicator, rank int) {
		if rank == 0 {
			// A send may complete eagerly before the receiver compares
			// sizes, so only the receiver is sure to see the mismatch.
			if err := c.Send(Host(make([]int32, 4)), 1, nil); err != nil && !errors.Is(err, ErrInvalidUsage) {
				t.Fatalf("sender: %v, want nil or ErrInvalidUsage", err)
			}
			return
		}
		err := c.Recv(Host(make([]int32, 8)), 0, nil)
		wantErr(t, "mismatched sizes", err, ErrInvalidUsage, "ncore_recv")
	})
}

func TestClosedCommunicatorAndItsResourcesAnswerErrClosed(t *testing.T) {
	runRanks(t, 2, rankOptions{}, func(t *testing.T, c *Communicator, rank int) {
		mem, err := MemAlloc(BackendHost, 256)
		must(t, "MemAlloc", err)
		defer mem.Close()
		w, err := c.RegisterWindow(mem.Ptr(), WindowDefault)
		must(t, "RegisterWindow", err)
		op, err := c.CreatePreMulSum(Host([]float32{2}), ScalarHostImmediate)
		must(t, "CreatePreMulSum", err)
		must(t, "Finalize", c.Finalize())
		wantErr(t, "second Finalize", c.Finalize(), ErrInvalidUsage)
		must(t, "Close", c.Close())
		must(t, "second Close", c.Close())
		_, err = c.Rank()
		wantErr(t, "Rank after Close", err, ErrClosed)
		wantErr(t, "Send after Close", c.Send(Host([]int8{1}), 1-rank, nil), ErrClosed)
		if w.IsValid() || op.IsValid() {
			t.Fatal("resources outlived their communicator")
		}
		_, err = w.Size()
		wantErr(t, "window Size after comm Close", err, ErrClosed)
		_, err = op.Op()
		wantErr(t, "op after comm Close", err, ErrClosed)
		must(t, "window Close after comm Close", w.Close())
		must(t, "op Close after comm Close", op.Close())
	})
}

func TestKilledPeerGivesRemoteOrTimeout(t *testing.T) {
	runRanks(t, 2, rankOptions{mayDie: map[int]bool{1: true}, timeout: 5 * time.Second},
		func(t *testing.T, c *Communicator, rank int) {
			// Both ranks are past init and a first collective before rank 1
			// dies, so only the Recv below can see the death.
			must(t, "barrier", c.AllReduce(Host([]int8{1}), Host(make([]int8, 1)), Sum, nil))
			if rank == 1 {
				time.Sleep(200 * time.Millisecond)
				syscall.Kill(syscall.Getpid(), syscall.SIGKILL)
				select {}
			}
			err := c.Recv(Host(make([]float32, 4)), 1, nil)
			if !errors.Is(err, ErrRemote) && !errors.Is(err, ErrTimeout) {
				t.Fatalf("Recv from a killed peer: %v, want ErrRemote or ErrTimeout", err)
			}
			t.Logf("killed peer: %v", err)
		})
}

func TestWaitSignalContextAbortsWhenTheContextEnds(t *testing.T) {
	runRanks(t, 2, rankOptions{}, func(t *testing.T, c *Communicator, rank int) {
		if rank == 1 {
			// Stay alive past rank 0's deadline, so that its wait ends by the
			// context and not by this rank's departure.
			time.Sleep(1500 * time.Millisecond)
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		start := time.Now()
		err := c.WaitSignalContext(ctx, []WaitSignalDesc{SignalsFrom(1, 1)}, nil)
		if !errors.Is(err, ErrClosed) || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("WaitSignalContext: %v, want ErrClosed and DeadlineExceeded", err)
		}
		if d := time.Since(start); d > 1200*time.Millisecond {
			t.Fatalf("abort took %v", d)
		}
		if c.IsValid() {
			t.Fatal("communicator still valid after the context aborted it")
		}
		// A context that is already done does not touch the communicator.
		err = c.RecvContext(ctx, Host(make([]byte, 1)), 1, nil)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("RecvContext with a done context: %v", err)
		}
	})
}
