package leap

import (
	"testing"

	"github.com/weftdev/weft/internal/rectest"
	"github.com/weftdev/weft/record"
	"github.com/weftdev/weft/sim"
)

// leapVector decodes a location's access vector, runs expanded.
func leapVector(t *testing.T, es []record.Entry) []int {
	t.Helper()
	var v []int
	for _, e := range es {
		switch {
		case e.Tag == tagThread && len(e.Args) == 1:
			v = append(v, int(e.Args[0]))
		case e.Tag >= tagThread0 && e.Tag < tagRun && len(e.Args) == 0:
			v = append(v, int(e.Tag-tagThread0))
		case e.Tag == tagRun && len(e.Args) == 2:
			for i := uint64(0); i < e.Args[1]; i++ {
				v = append(v, int(e.Args[0]))
			}
		default:
			t.Fatalf("unexpected entry %+v", e)
		}
	}
	return v
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestLeapRegistered(t *testing.T) {
	rec, err := record.New("leap")
	if err != nil {
		t.Fatal(err)
	}
	if rec.Algorithm() != "leap" {
		t.Fatalf("Algorithm() = %q", rec.Algorithm())
	}
}

// One goroutine: every access is its own one-byte entry, in order.
func TestLeapOneGoroutine(t *testing.T) {
	rec, _ := record.New("leap")
	_, log := rectest.RecordLog(t, rec, func() {
		var m sim.Mutex
		v := sim.NewVar(0)
		m.Lock()              // op 1
		v.Store(1)            // op 2
		_ = v.Load()          // op 3
		m.Unlock()            // op 4
		v.Store(v.Load() + 1) // ops 5, 6
	})
	if len(log.Threads) != 1 {
		t.Fatalf("%d threads", len(log.Threads))
	}
	lm, lv := rectest.Touched(t, log, 0, 1), rectest.Touched(t, log, 0, 2)
	if got := leapVector(t, log.Locs[lm]); !equalInts(got, []int{0, 0}) {
		t.Errorf("mutex vector %v, want [0 0]", got)
	}
	if got := leapVector(t, log.Locs[lv]); !equalInts(got, []int{0, 0, 0, 0}) {
		t.Errorf("var vector %v, want [0 0 0 0]", got)
	}
	for _, e := range log.Locs[lv] {
		if e.Tag != tagThread0 || len(e.Args) != 0 {
			t.Errorf("entry %+v, want the one-byte form of thread 0", e)
		}
	}
}

// Two goroutines ordered by a mutex: the root holds it while it starts the
// child and writes, the child reads after.
func TestLeapOrderedByMutex(t *testing.T) {
	for _, rle := range []bool{false, true} {
		rec := New(Options{RunLength: rle})
		_, log := rectest.RecordLog(t, rec, func() {
			var m sim.Mutex
			v := sim.NewVar(0)
			m.Lock()
			sim.Go(func() {
				m.Lock()
				if v.Load() != 1 {
					panic("child ran first")
				}
				m.Unlock()
			})
			v.Store(1)
			m.Unlock()
		})
		if len(log.Threads) != 2 {
			t.Fatalf("%d threads", len(log.Threads))
		}
		lm, lv := rectest.Touched(t, log, 0, 1), rectest.Touched(t, log, 0, 3)
		if got := leapVector(t, log.Locs[lm]); !equalInts(got, []int{0, 0, 1, 1}) {
			t.Errorf("rle=%v: mutex vector %v, want [0 0 1 1]", rle, got)
		}
		if got := leapVector(t, log.Locs[lv]); !equalInts(got, []int{0, 1}) {
			t.Errorf("rle=%v: var vector %v, want [0 1]", rle, got)
		}
		if rle && len(log.Locs[lm]) != 2 {
			t.Errorf("run-length encoded mutex vector has %d entries, want 2", len(log.Locs[lm]))
		}
	}
}

// Many goroutines: indices past the one-byte form are logged with an
// argument, and each goroutine's Lock and Unlock are adjacent.
func TestLeapManyGoroutines(t *testing.T) {
	const n = 40
	rec, _ := record.New("leap")
	_, log := rectest.RecordLog(t, rec, func() {
		var m sim.Mutex
		c := sim.NewVar(0)
		for range n {
			sim.Go(func() {
				m.Lock()
				c.Store(c.Load() + 1)
				m.Unlock()
			})
		}
	})
	if len(log.Threads) != n+1 {
		t.Fatalf("%d threads", len(log.Threads))
	}
	lm := rectest.Touched(t, log, 1, 1)
	vm := leapVector(t, log.Locs[lm])
	if len(vm) != 2*n {
		t.Fatalf("mutex vector of %d accesses, want %d", len(vm), 2*n)
	}
	seen := map[int]bool{}
	wide := false
	for i := 0; i < len(vm); i += 2 {
		if vm[i] != vm[i+1] || seen[vm[i]] {
			t.Fatalf("mutex vector %v: Lock and Unlock of one goroutine not adjacent", vm)
		}
		seen[vm[i]] = true
	}
	for _, e := range log.Locs[lm] {
		if e.Tag == tagThread {
			wide = true
			if e.Args[0] < uint64(inlineThreads) {
				t.Errorf("thread %d logged in the wide form", e.Args[0])
			}
		}
	}
	if !wide {
		t.Error("no goroutine past the one-byte form")
	}
}

// The log grows by a byte per access (the faithful form), and run-length
// encoding folds one goroutine's accesses into one entry.
func TestLeapLogSize(t *testing.T) {
	const n = 20000
	body := func() {
		v := sim.NewVar(0)
		for i := range n {
			v.Store(i)
		}
	}
	rec, _ := record.New("leap")
	res, log := rectest.RecordLog(t, rec, body)
	lv := rectest.Touched(t, log, 0, 1)
	if len(log.Locs[lv]) != n {
		t.Fatalf("%d entries, want %d", len(log.Locs[lv]), n)
	}
	if res.Bytes > n+n/4+512 {
		t.Errorf("log of %d accesses takes %d bytes", n, res.Bytes)
	}
	res2, log2 := rectest.RecordLog(t, New(Options{RunLength: true}), body)
	lv = rectest.Touched(t, log2, 0, 1)
	if len(log2.Locs[lv]) != 1 || len(leapVector(t, log2.Locs[lv])) != n {
		t.Fatalf("run-length log: %d entries", len(log2.Locs[lv]))
	}
	if res2.Bytes > res.Bytes/4 {
		t.Errorf("run-length log %d bytes, faithful %d", res2.Bytes, res.Bytes)
	}
	t.Logf("%d accesses: %d bytes, %d run-length encoded", n, res.Bytes, res2.Bytes)
}
