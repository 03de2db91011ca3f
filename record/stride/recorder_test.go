package stride

import (
	"testing"

	"github.com/weftdev/weft/internal/rectest"
	"github.com/weftdev/weft/record"
	"github.com/weftdev/weft/sim"
)

// strideWrites decodes a location stream: (goroutine, counter, digest).
func strideWrites(t *testing.T, es []record.Entry) [][3]uint64 {
	t.Helper()
	var ws [][3]uint64
	lastN := map[uint64]uint64{}
	last := uint64(0)
	for _, e := range es {
		var th, dn, d uint64
		switch {
		case e.Tag == tagWrite && len(e.Args) == 3:
			th, dn, d = e.Args[0], e.Args[1], e.Args[2]
		case e.Tag == tagWriteSame && len(e.Args) == 2 && len(ws) > 0:
			th, dn, d = last, e.Args[0], e.Args[1]
		default:
			t.Fatalf("unexpected location entry %+v", e)
		}
		lastN[th] += dn
		last = th
		ws = append(ws, [3]uint64{th, lastN[th], d})
	}
	return ws
}

// strideReads decodes a goroutine's reads: (counter, location, digest,
// bound), sync reads with digest ^0.
func strideReads(t *testing.T, es []record.Entry) [][4]uint64 {
	t.Helper()
	var rs [][4]uint64
	var lastLoc uint64
	bound := map[uint64]uint64{}
	for _, e := range es {
		var loc, d, delta uint64
		switch {
		case e.Tag < record.TagFirst:
			continue
		case e.Tag == tagRead && len(e.Args) == 3:
			loc, d, delta = e.Args[0], e.Args[1], e.Args[2]
			lastLoc = loc
		case e.Tag == tagReadSame && len(e.Args) == 2 && lastLoc != 0:
			loc, d, delta = lastLoc, e.Args[0], e.Args[1]
		case e.Tag == tagSyncRead && len(e.Args) == 2:
			loc, d, delta = e.Args[0], ^uint64(0), e.Args[1]
		default:
			t.Fatalf("unexpected thread entry %+v", e)
		}
		bound[loc] += delta
		rs = append(rs, [4]uint64{e.N, loc, d, bound[loc]})
	}
	return rs
}

func TestStrideRegistered(t *testing.T) {
	rec, err := record.New("stride")
	if err != nil || rec.Algorithm() != "stride" {
		t.Fatalf("New(stride) = %v, %v", rec, err)
	}
}

// One goroutine: versions are exact, and the bound of each read is the
// version it read.
func TestStrideOneGoroutine(t *testing.T) {
	_, log := rectest.RecordLog(t, rectest.Recorder(t, "stride"), func() {
		v := sim.NewVar(0)
		_ = v.Load() // initial value: version 0
		v.Store(7)
		_ = v.Load()
		v.Store(9)
		_ = v.Load()
		_ = v.Load()
	})
	if len(log.Threads) != 1 || len(log.Locs) != 2 {
		t.Fatalf("%d threads, %d locations; want 1, 1", len(log.Threads), len(log.Locs)-1)
	}
	ws := strideWrites(t, log.Locs[1])
	want := [][3]uint64{{0, 2, 7}, {0, 4, 9}}
	if len(ws) != 2 || ws[0] != want[0] || ws[1] != want[1] {
		t.Fatalf("writes %v, want %v", ws, want)
	}
	rs := strideReads(t, log.Threads[0].Entries)
	wantR := [][4]uint64{{1, 1, 0, 0}, {3, 1, 7, 1}, {5, 1, 9, 2}, {6, 1, 9, 2}}
	if len(rs) != len(wantR) {
		t.Fatalf("reads %v, want %v", rs, wantR)
	}
	for i := range rs {
		if rs[i] != wantR[i] {
			t.Fatalf("reads %v, want %v", rs, wantR)
		}
	}
	// Reads of the same location after the first use the short form.
	short := 0
	for _, e := range log.Threads[0].Entries {
		if e.Tag == tagReadSame {
			short++
		}
	}
	if short != 3 {
		t.Errorf("%d short reads, want 3", short)
	}
}

// Goroutines ordered by a Mutex: the mutex's location orders its Lock and
// Unlock as writes; the Var's writes and reads are exact.
func TestStrideOrderedByMutex(t *testing.T) {
	_, log := rectest.RecordLog(t, rectest.Recorder(t, "stride"), func() {
		var m sim.Mutex
		v := sim.NewVar(0)
		m.Lock() // root first: children start after
		v.Store(1)
		m.Unlock()
		for range 2 {
			sim.Go(func() {
				m.Lock()
				v.Store(v.Load() + 10)
				m.Unlock()
			})
		}
	})
	if len(log.Threads) != 3 {
		t.Fatalf("%d threads, want 3", len(log.Threads))
	}
	var mloc, vloc int
	for id := 1; id < len(log.Locs); id++ {
		if len(log.Locs[id]) == 0 {
			continue
		}
		ws := strideWrites(t, log.Locs[id])
		if len(ws) == 6 {
			mloc = id
		} else if len(ws) == 3 {
			vloc = id
		}
	}
	if mloc == 0 || vloc == 0 {
		t.Fatalf("no mutex (6 writes) or var (3 writes) location: %v", log.Locs)
	}
	mw := strideWrites(t, log.Locs[mloc])
	for i := 0; i < 6; i += 2 {
		if mw[i][0] != mw[i+1][0] || mw[i+1][1] <= mw[i][1] {
			t.Errorf("mutex writes %v: Lock and Unlock not paired", mw)
		}
	}
	vw := strideWrites(t, log.Locs[vloc])
	if vw[0][2] != 1 || vw[1][2] != 11 || vw[2][2] != 21 {
		t.Errorf("var writes %v, want values 1, 11, 21", vw)
	}
	// Each child read the version before its write, exactly.
	for th := 1; th <= 2; th++ {
		rs := strideReads(t, log.Threads[th].Entries)
		if len(rs) != 1 || rs[0][1] != uint64(vloc) {
			t.Fatalf("goroutine %d reads %v", th, rs)
		}
		var ver uint64
		for i, w := range vw {
			if w[0] == uint64(th) {
				ver = uint64(i + 1)
			}
		}
		if rs[0][3] != ver-1 || rs[0][2] != vw[ver-2][2] {
			t.Errorf("goroutine %d read %v; its write is version %d of %v", th, rs[0], ver, vw)
		}
	}
}

// The log grows with the events, the recorder's state does not: a long
// run of one goroutine's reads and writes costs a few bytes each.
func TestStrideLogSize(t *testing.T) {
	const n = 20000
	res, _ := rectest.RecordLog(t, rectest.Recorder(t, "stride"), func() {
		v := sim.NewVar(0)
		for i := range n {
			v.Store(i & 7)
			_ = v.Load()
		}
	})
	if per := float64(res.Bytes) / float64(2*n); per > 4 {
		t.Errorf("%.1f bytes per access, want at most 4", per)
	}
}

// A read inside a critical section is appended to the goroutine's stream
// once the lock is released (record.Releaser), so that the gap between
// two critical sections, where a lost update happens, keeps its share of
// the time (the probe effect, internal/workload).
func TestStrideLogsReadAfterRelease(t *testing.T) {
	var m sim.Mutex
	var before, inside, after int
	rectest.RecordLog(t, rectest.Recorder(t, "stride"), func() {
		v := sim.NewVar(0)
		_ = v.Load()
		m.Lock()
		m.Unlock()
		s := &record.Current().Stream
		before = s.Pending()
		m.Lock()
		_ = v.Load()
		inside = s.Pending()
		m.Unlock()
		after = s.Pending()
	})
	if inside != before {
		t.Errorf("%d bytes logged inside the critical section, want none until the release", inside-before)
	}
	if after == before {
		t.Errorf("the read inside the critical section was not logged after the release")
	}
}
