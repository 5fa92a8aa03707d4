package ncore

import (
	"testing"
)

// The eight collectives on 4 ranks, with Go slices and with MemAlloc memory.

func TestAllEightCollectivesOnFourRanks(t *testing.T) {
	runRanks(t, 4, rankOptions{}, func(t *testing.T, c *Communicator, rank int) {
		const n = 4
		size := value[int](t, "Size")(c.Size())
		r := float32(rank)

		// AllReduce: sum of (rank+1)*(i+1) over ranks = 10*(i+1).
		send := []float32{r + 1, 2 * (r + 1), 3 * (r + 1), 4 * (r + 1)}
		recv := make([]float32, n)
		must(t, "AllReduce", c.AllReduce(Host(send), Host(recv), Sum, nil))
		for i, v := range recv {
			if v != float32(10*(i+1)) {
				t.Fatalf("AllReduce[%d] = %v", i, v)
			}
		}
		avg := []int32{int32(rank) * 4}
		must(t, "AllReduce Avg in place", c.AllReduce(Host(avg), Host(avg), Avg, nil))
		if avg[0] != 6 { // (0+4+8+12)/4
			t.Fatalf("Avg = %d", avg[0])
		}

		// Broadcast from root 2; send may be nil elsewhere.
		b := make([]int32, n)
		var bsend Buffer
		if rank == 2 {
			bsend = Host([]int32{7, 8, 9, 10})
		}
		must(t, "Broadcast", c.Broadcast(bsend, Host(b), 2, nil))
		if b[0] != 7 || b[3] != 10 {
			t.Fatalf("Broadcast = %v", b)
		}

		// Reduce Max to root 1; recv nil elsewhere.
		var rrecv []int32
		var rbuf Buffer
		if rank == 1 {
			rrecv = make([]int32, 2)
			rbuf = Host(rrecv)
		}
		must(t, "Reduce", c.Reduce(Host([]int32{int32(rank), -int32(rank)}), rbuf, Max, 1, nil))
		if rank == 1 && (rrecv[0] != 3 || rrecv[1] != 0) {
			t.Fatalf("Reduce = %v", rrecv)
		}

		// AllGather in place: my block of recv is the send buffer.
		g := make([]int64, 2*size)
		g[2*rank], g[2*rank+1] = int64(rank), int64(rank*rank)
		must(t, "AllGather in place", c.AllGather(Host(g[2*rank:2*rank+2]), Host(g), nil))
		for q := 0; q < size; q++ {
			if g[2*q] != int64(q) || g[2*q+1] != int64(q*q) {
				t.Fatalf("AllGather = %v", g)
			}
		}

		// ReduceScatter: block q of everyone's send is q+rank; sum over ranks
		// for my block = 4*rank + 6.
		rs := make([]float64, size)
		for q := range rs {
			rs[q] = float64(q + rank)
		}
		one := make([]float64, 1)
		must(t, "ReduceScatter", c.ReduceScatter(Host(rs), Host(one), Sum, nil))
		if one[0] != float64(4*rank+6) {
			t.Fatalf("ReduceScatter = %v", one[0])
		}

		// AllToAll: I send 10*rank+j to rank j; I get 10*i+rank from i.
		a2a := make([]uint32, size)
		for j := range a2a {
			a2a[j] = uint32(10*rank + j)
		}
		got := make([]uint32, size)
		must(t, "AllToAll", c.AllToAll(Host(a2a), Host(got), nil))
		for i, v := range got {
			if v != uint32(10*i+rank) {
				t.Fatalf("AllToAll = %v", got)
			}
		}

		// Gather to root 3.
		var gat []byte
		var gbuf Buffer
		if rank == 3 {
			gat = make([]byte, size)
			gbuf = Host(gat)
		}
		must(t, "Gather", c.Gather(Host([]byte{byte(rank + 100)}), gbuf, 3, nil))
		if rank == 3 && (gat[0] != 100 || gat[3] != 103) {
			t.Fatalf("Gather = %v", gat)
		}

		// Scatter from root 0.
		var sbuf Buffer
		if rank == 0 {
			sbuf = Host([]int8{-1, -2, -3, -4})
		}
		sc := make([]int8, 1)
		must(t, "Scatter", c.Scatter(sbuf, Host(sc), 0, nil))
		if sc[0] != int8(-1-rank) {
			t.Fatalf("Scatter = %v", sc)
		}
	})
}

func TestCollectiveBufferChecks(t *testing.T) {
	runRanks(t, 2, rankOptions{}, func(t *testing.T, c *Communicator, rank int) {
		err := c.AllReduce(Host(make([]float32, 4)), Host(make([]float32, 3)), Sum, nil)
		wantErr(t, "short recv", err, ErrInvalid, "ncore_allreduce: recvbuf:", "3")
		err = c.AllReduce(Host(make([]float32, 4)), Host(make([]int32, 4)), Sum, nil)
		wantErr(t, "mixed types", err, ErrInvalid, "recvbuf")
		err = c.AllGather(Host(make([]int32, 2)), Host(make([]int32, 3)), nil)
		wantErr(t, "allgather recv too small", err, ErrInvalid, "ncore_allgather: recvbuf:")
		err = c.AllToAll(Host(make([]int32, 3)), Host(make([]int32, 4)), nil)
		wantErr(t, "alltoall uneven", err, ErrInvalid, "multiple of nranks")
		err = c.Broadcast(nil, Host(make([]int32, 2)), 9, nil)
		wantErr(t, "root out of range", err, ErrInvalid, "root")
		err = c.AllReduce(Host(make([]float32, 2)), Host(make([]float32, 2)), ReduceOp(77), nil)
		wantErr(t, "unknown op", err, ErrInvalid, "op")
	})
}

func TestCollectivesOnMemAllocMemory(t *testing.T) {
	runRanks(t, 4, rankOptions{}, func(t *testing.T, c *Communicator, rank int) {
		b, err := c.Backend()
		must(t, "Backend", err)
		stream, err := NewStream(b)
		must(t, "NewStream", err)
		defer stream.Close()
		mem, err := MemAlloc(b, 8*4)
		must(t, "MemAlloc", err)
		defer mem.Close()
		x := []float32{1, 2, 3, 4, 5, 6, 7, float32(rank)}
		must(t, "Memcpy in", Memcpy(b, mem.As(Float32), Host(x), stream))
		buf := mem.As(Float32)
		must(t, "AllReduce", c.AllReduce(buf, buf, Sum, stream))
		must(t, "Synchronize", stream.Synchronize())
		out := make([]float32, 8)
		must(t, "Memcpy out", Memcpy(b, Host(out), buf, stream))
		if out[0] != 4 || out[6] != 28 || out[7] != 6 {
			t.Fatalf("device AllReduce = %v", out)
		}
		// A sub-range: AllGather of element 7 into elements 0..3.
		must(t, "AllGather sub-range", c.AllGather(buf.Elements(7, 1), buf.Elements(0, 4), stream))
		must(t, "Memcpy out", Memcpy(b, Host(out), buf, stream))
		if out[0] != 6 || out[3] != 6 {
			t.Fatalf("device AllGather = %v", out)
		}
	})
}
