package light

import (
	"reflect"
	"testing"

	"github.com/weftdev/weft/internal/rectest"
	"github.com/weftdev/weft/record"
	"github.com/weftdev/weft/sim"
)

// lightEntries returns Light's entries of goroutine th's stream (the
// touches and choices left out), decoded by the planner's decoders: copies
// and repeats expanded, locations and writer codes in two arguments,
// locations and other goroutines' counters plain, not the zigzag deltas to
// the stream's previous ones that the log holds.
func lightEntries(t *testing.T, th record.ThreadLog) []record.Entry {
	t.Helper()
	es, err := lightUncopy(th.Entries, th.Ops)
	if err != nil {
		t.Fatal(err)
	}
	var out []record.Entry
	st := &lightStream{}
	prevN := map[uint64]uint64{}
	for _, e := range es {
		e, err := st.next(e)
		if err != nil {
			t.Fatal(err)
		}
		args := append([]uint64(nil), e.Args...)
		loc, who := argRoles(e.Tag)
		if loc {
			args[0] = st.loc(args[0])
		}
		if who >= 0 && args[who] >= 2 {
			c := args[who]
			prevN[c] += uint64(unzigzag(args[who+1]))
			args[who+1] = prevN[c]
		}
		out = append(out, record.Entry{Tag: e.Tag, N: e.N, Args: args})
	}
	return out
}

// argRoles says how an entry of tag holds its arguments, unpacked: loc, a
// location first (coded against the stream's previous one); who >= 0, a
// writer code at args[who] and its counter next (for another goroutine's,
// coded against the counter of that goroutine the stream named last).
func argRoles(tag uint8) (loc bool, who int) {
	switch tag {
	case tagWriteOwn:
		return true, -1
	case tagStart:
		return false, 0
	}
	return true, 1
}

func e(tag uint8, n uint64, args ...uint64) record.Entry {
	return record.Entry{Tag: tag, N: n, Args: args}
}

// One goroutine: a write is logged with its predecessor unless it is its
// own previous write, reads of its own writes are not logged, a read of
// another write (the initial value) is an interval logged at the
// goroutine's end.
func TestLightLogOneGoroutine(t *testing.T) {
	_, log := rectest.RecordLog(t, rectest.Recorder(t, "light"), func() {
		v := sim.NewVar(0)
		v.Store(1)   // 1: first write, predecessor the initial value
		_ = v.Load() // 2: reads its own write: not logged (Lemma 4.3)
		_ = v.Load() // 3
		v.Store(2)   // 4: overwrites its own previous write: not logged
		_ = v.Load() // 5
		w := sim.NewVar(0)
		_ = w.Load() // 6: the initial value
	})
	got := lightEntries(t, log.Threads[0])
	want := []record.Entry{
		e(tagWrite, 1, 1, 0, 0),
		e(tagRead, 6, 2, 0, 0, 0),
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("entries\n got %v\nwant %v", got, want)
	}
}

// Lemma 4.2: a Var always accessed under one mutex logs nothing; its
// order is the mutex's, whose acquisitions are logged.
func TestLightLogGuarded(t *testing.T) {
	var m sim.Mutex
	_, log := rectest.RecordLog(t, rectest.Recorder(t, "light"), func() {
		v := sim.NewVar(0)
		m.Lock() // 1: acquire, location 1
		v.Store(1)
		_ = v.Load()
		m.Unlock() // 4: release
		done := sim.NewVar(false)
		_ = done
		sim.Go(func() {
			m.Lock() // 1
			v.Store(v.Load() + 1)
			m.Unlock() // 4
		})
	})
	root := lightEntries(t, log.Threads[0])
	// The release overwrites the goroutine's own acquire: not logged.
	want := []record.Entry{e(tagWrite, 1, 1, 0, 0)}
	if !reflect.DeepEqual(root, want) {
		t.Fatalf("root entries\n got %v\nwant %v", root, want)
	}
	child := lightEntries(t, log.Threads[1])
	// Its first access names the root's operation 5 that started it.
	want = []record.Entry{e(tagStart, 1, 2, 5), e(tagWrite, 1, 1, 2, 4)}
	if !reflect.DeepEqual(child, want) {
		t.Fatalf("child entries\n got %v\nwant %v", child, want)
	}
	if got := log.Locs[2]; !reflect.DeepEqual(got, []record.Entry{e(tagGuarded, 0, 1, 4)}) {
		t.Fatalf("var location entries %v, want it guarded by 1 with 4 accesses skipped", got)
	}
}

// An access without the guard breaks the location: the accesses after it
// are logged, and each goroutine's first logged access names the last
// skipped one.
func TestLightLogBrokenGuard(t *testing.T) {
	var m sim.Mutex
	_, log := rectest.RecordLog(t, rectest.Recorder(t, "light"), func() {
		v := sim.NewVar(0)
		m.Lock()   // 1
		v.Store(1) // 2: skipped
		m.Unlock() // 3
		v.Store(2) // 4: breaks: barrier after 2; overwrites its own 2
		_ = v.Load()
	})
	got := lightEntries(t, log.Threads[0])
	want := []record.Entry{
		e(tagWrite, 1, 1, 0, 0),
		e(tagBarrier, 4, 2, 1, 2),
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("entries\n got %v\nwant %v", got, want)
	}
	if len(log.Locs[2]) != 0 {
		t.Fatalf("broken location has entries %v", log.Locs[2])
	}
}

// Goroutines ordered by a mutex: a read of another goroutine's write names
// it by goroutine index and counter.
func TestLightLogCrossGoroutine(t *testing.T) {
	var m sim.Mutex
	_, log := rectest.RecordLog(t, rectest.Recorder(t, "light"), func() {
		v := sim.NewVar(0)
		_ = v.Load() // 1: unguarded: the location (1) is broken, logged
		sim.Go(func() {
			m.Lock()   // 1
			v.Store(7) // 2
			m.Unlock() // 3
		})
		for {
			m.Lock()
			x := v.Load()
			m.Unlock()
			if x == 7 {
				return
			}
			sim.Yield()
		}
	})
	child := lightEntries(t, log.Threads[1])
	if len(child) < 3 || !reflect.DeepEqual(child[2], e(tagWrite, 2, 1, 0, 0)) {
		t.Fatalf("child entries %v: want its write at 2, overwriting the initial value", child)
	}
	var last record.Entry
	for _, x := range lightEntries(t, log.Threads[0]) {
		if x.Tag == tagRead && x.Args[0] == 1 {
			last = x
		}
	}
	if last.Args[1] != 3 || last.Args[2] != 2 {
		t.Fatalf("last read of the var %v: want the child's (index 1, code 3) write 2", last)
	}
}

// A write over another goroutine's write that goroutine read back (reads
// that are not logged) names the last such read.
func TestLightLogOwnReadOverwritten(t *testing.T) {
	_, log := rectest.RecordLog(t, rectest.Recorder(t, "light"), func() {
		v := sim.NewVar(0)
		v.Store(1)   // 1
		_ = v.Load() // 2: its own write: not logged
		_ = v.Load() // 3
		var wg sim.WaitGroup
		wg.Go(func() { v.Store(2) })
		wg.Wait()
	})
	child := lightEntries(t, log.Threads[1])
	var got record.Entry
	for _, x := range child {
		if x.Tag == tagWrite && x.Args[0] == 1 {
			got = x
		}
	}
	// Predecessor: goroutine 0 (code 2), operation 1; its last read is
	// 2 operations later.
	if want := []uint64{1, 2, 1, 2}; !reflect.DeepEqual(got.Args, want) {
		t.Fatalf("child's write of the var %v (entries %v), want args %v", got, child, want)
	}
}

// The stream's coding (repeats of the dictionary's entries, copies of the
// window's runs) decodes to the entries logged, across the window's wrap:
// runs whose period is below, at and above the window, few and many
// distinct entries, counters that step by one or more.
func TestLightCodingRoundTrip(t *testing.T) {
	var want []record.Entry
	_, log := rectest.RecordLog(t, rectest.Recorder(t, "light"), func() {
		v := sim.NewVar(0)
		th := record.Current()
		ts := th.State.(*lightThread)
		rng := uint64(1)
		next := func(k uint64) uint64 { // splitmix-ish, deterministic
			rng = rng*6364136223846793005 + 1442695040888963407
			return (rng >> 33) % k
		}
		for _, period := range []int{1, 3, copyWindow - 1, copyWindow, copyWindow + 1, 2 * copyWindow, 0} {
			for i := range 5 * copyWindow {
				_ = v.Load() // a counter to log the entry at
				if next(4) == 0 {
					_ = v.Load() // steps of two, now and then
				}
				id := uint32(2 + i%max(period, 1))
				if period == 0 || next(10) == 0 {
					id = uint32(2 + next(1000)) // the run broken
				}
				ts.put(th, tagWriteOwn, th.N(), ts.loc(id))
				want = append(want, e(tagWriteOwn, th.N(), uint64(id)))
			}
		}
	})
	var got []record.Entry
	for _, e := range lightEntries(t, log.Threads[0]) {
		if e.Tag == tagWriteOwn {
			got = append(got, e)
		}
	}
	if !reflect.DeepEqual(got, want) {
		for i := range min(len(got), len(want)) {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Fatalf("%d entries decoded, %d logged; the first difference, entry %d: got %v, want %v", len(got), len(want), i, got[i], want[i])
			}
		}
		t.Fatalf("%d entries decoded, %d logged", len(got), len(want))
	}
	var copies, repeats int
	for _, e := range log.Threads[0].Entries {
		switch {
		case e.Tag == tagCopy:
			copies++
		case e.Tag >= tagRepeat && e.Tag < tagRepeat+dictSize:
			repeats++
		}
	}
	if copies == 0 || repeats == 0 {
		t.Errorf("%d copies and %d repeats: the test does not exercise the coding", copies, repeats)
	}
	t.Logf("%d entries: %d logged as copies, %d as repeats", len(want), copies, repeats)
}

// Light codes no entry inside a critical section: a lock that changes
// hands is logged once the goroutine has released it (record.Releaser), so
// that the gap between two critical sections, where a lost update happens,
// keeps its share of the time (the probe effect, internal/workload).
func TestLightCodesAfterRelease(t *testing.T) {
	var m sim.Mutex
	var before, inside, after int
	rectest.RecordLog(t, rectest.Recorder(t, "light"), func() {
		m.Lock()
		m.Unlock()
		done := make(chan struct{})
		sim.Go(func() {
			m.Lock()
			m.Unlock()
			close(done)
		})
		<-done
		s := &record.Current().Stream
		before = s.Pending()
		m.Lock() // follows the child's release: logged
		inside = s.Pending()
		m.Unlock()
		after = s.Pending()
	})
	if inside != before {
		t.Errorf("%d bytes logged inside the critical section, want none until the release", inside-before)
	}
	if after == before {
		t.Errorf("the acquire of a lock another goroutine released was not logged after the release")
	}
}
