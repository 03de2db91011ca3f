package aggreplay

import (
	"os"
	"reflect"
	"testing"

	"github.com/weftdev/weft/internal/rectest"
	"github.com/weftdev/weft/record"
	"github.com/weftdev/weft/sim"
)

// aggEntries returns a thread's entries of aggreplay's own tags.
func aggEntries(log *record.Log, th int) []record.Entry {
	var es []record.Entry
	for _, e := range log.Threads[th].Entries {
		if e.Tag >= record.TagFirst {
			es = append(es, e)
		}
	}
	return es
}

func TestAggrePlayOneGoroutine(t *testing.T) {
	_, log := rectest.RecordLog(t, rectest.Recorder(t, "aggreplay"), func() {
		x := sim.NewVar(0)
		x.Store(1)   // 1
		_ = x.Load() // 2: reads version 1
		_ = x.Load() // 3: same write: no entry
		x.Store(2)   // 4: only its own reads: null line (O2)
		x.Store(3)   // 5: nothing read: null line (O1)
		_ = x.Load() // 6: reads version 3, 2 past the previous read's
	})
	l := rectest.Touched(t, log, 0, 1)
	want := []record.Entry{
		{Tag: tagW, Args: []uint64{0, 1}},
		{Tag: tagW, Args: []uint64{0, 3}},
		{Tag: tagW, Args: []uint64{0, 1}},
	}
	if got := log.Locs[l]; !reflect.DeepEqual(got, want) {
		t.Errorf("W_x = %+v, want %+v", got, want)
	}
	wantT := []record.Entry{
		{Tag: tagRead, N: 2, Args: []uint64{1}},
		{Tag: tagRead, N: 6, Args: []uint64{2}},
	}
	if got := aggEntries(log, 0); !reflect.DeepEqual(got, wantT) {
		t.Errorf("thread stream = %+v, want %+v", got, wantT)
	}
}

func TestAggrePlayInitialRead(t *testing.T) {
	_, log := rectest.RecordLog(t, rectest.Recorder(t, "aggreplay"), func() {
		x := sim.NewVar(7)
		_ = x.Load() // 1: the initial value, as a first read expects: no entry
		_ = x.Load() // 2: no entry
	})
	if got := aggEntries(log, 0); len(got) != 0 {
		t.Errorf("thread stream = %+v, want none", got)
	}
}

// The child is started after the root's accesses, so their order is
// fixed: the child's write logs the root's read count (RC vector [1]),
// and its read reads its own write.
func TestAggrePlayReadVector(t *testing.T) {
	_, log := rectest.RecordLog(t, rectest.Recorder(t, "aggreplay"), func() {
		x := sim.NewVar(0)
		var m sim.Mutex
		x.Store(1)      // root 1
		_ = x.Load()    // root 2
		m.Lock()        // root 3
		m.Unlock()      // root 4
		sim.Go(func() { // root 5
			x.Store(2)   // child 1: RC = [1 0] → (1, 1)
			_ = x.Load() // child 2: reads version 2
			m.Lock()     // child 3
			m.Unlock()   // child 4
		})
	})
	if len(log.Threads) != 2 {
		t.Fatalf("%d goroutines", len(log.Threads))
	}
	x, mu := rectest.Touched(t, log, 0, 1), rectest.Touched(t, log, 0, 3)
	wantX := []record.Entry{
		{Tag: tagW, Args: []uint64{0, 1}},
		{Tag: tagW, Args: []uint64{1, 1}},
	}
	if got := log.Locs[x]; !reflect.DeepEqual(got, wantX) {
		t.Errorf("W_x = %+v, want %+v", got, wantX)
	}
	wantM := []record.Entry{
		{Tag: tagL, Args: []uint64{0, 3}},
		{Tag: tagW, Args: []uint64{0, 1}},
		{Tag: tagL, Args: []uint64{1, 3}},
		{Tag: tagW, Args: []uint64{1, 1}},
	}
	if got := log.Locs[mu]; !reflect.DeepEqual(got, wantM) {
		t.Errorf("L_m = %+v, want %+v", got, wantM)
	}
	wantC := []record.Entry{
		{Tag: tagEX, N: 1, Args: []uint64{1, 1}},
		{Tag: tagRead, N: 2, Args: []uint64{2}},
	}
	if got := aggEntries(log, 1); !reflect.DeepEqual(got, wantC) {
		t.Errorf("child stream = %+v, want %+v", got, wantC)
	}
}

// O3: equal counts are run-length coded, three pairs an entry.
func TestAggrePlayRunLength(t *testing.T) {
	_, log := rectest.RecordLog(t, rectest.Recorder(t, "aggreplay"), func() {
		x := sim.NewVar(0)
		// A chain of goroutines, each reading x its own number of times
		// (1, 1, 2, 2, 2, 3, 4) and starting the next; the last writes.
		counts := []int{1, 1, 2, 2, 2, 3, 4}
		var step func(i int)
		step = func(i int) {
			if i == len(counts) {
				x.Store(1)
				return
			}
			for range counts[i] {
				_ = x.Load()
			}
			sim.Go(func() { step(i + 1) })
		}
		step(0)
	})
	last := len(log.Threads) - 1
	var ex []uint64
	for _, e := range aggEntries(log, last) {
		if e.Tag == tagEX {
			ex = append(ex, e.Args...)
		}
	}
	want := []uint64{1, 2, 2, 3, 3, 1, 4, 1}
	if !reflect.DeepEqual(ex, want) {
		t.Errorf("RC vector pairs %v, want %v", ex, want)
	}
}

// The log is compact: about three bytes an event for a store-load loop
// (a W_x entry per store, a WR entry per load that reads a new write).
func TestAggrePlayCompact(t *testing.T) {
	rec, _ := record.New("aggreplay")
	res, err := record.Record(func() {
		x := sim.NewVar(0)
		for i := range 20000 {
			x.Store(i)
			_ = x.Load()
			_ = x.Load()
		}
	}, rec, record.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(res.Log)
	if per := float64(res.Bytes) / float64(res.Events); per > 2.5 {
		t.Errorf("%d bytes for %d events: %.2f an event", res.Bytes, res.Events, per)
	} else {
		t.Logf("%d bytes for %d events: %.2f an event", res.Bytes, res.Events, per)
	}
}
