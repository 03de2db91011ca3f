package replay

import (
	"encoding/binary"
	"fmt"
	"os"
	"testing"

	"github.com/weftdev/weft/record"
	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
)

// aggLostUpdate is a flaky body: workers increment a counter with the read
// and the write in separate critical sections (a lost update), and the
// last one to finish checks the total.
func aggLostUpdate(workers int) func() {
	return func() {
		var m sim.Mutex
		x := sim.NewVar(0)
		done := sim.NewVar(0)
		for range workers {
			sim.Go(func() {
				m.Lock()
				v := x.Load()
				m.Unlock()
				m.Lock()
				x.Store(v + 1)
				m.Unlock()
				m.Lock()
				n := done.Load() + 1
				done.Store(n)
				got := x.Load()
				m.Unlock()
				if n == workers && got != workers {
					panic(fmt.Sprintf("lost update: got %d want %d", got, workers))
				}
			})
		}
	}
}

// aggRecord records body once; the caller removes res.Log.
func aggRecord(t testing.TB, body func(), dir string) (*record.Result, *record.Log) {
	t.Helper()
	rec, err := record.New("aggreplay")
	if err != nil {
		t.Fatal(err)
	}
	res, err := record.Record(body, rec, record.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	log, err := record.ReadFile(res.Log)
	if err != nil {
		t.Fatal(err)
	}
	return res, log
}

// aggReplay replays log n times and checks that every replay is faithful
// and fails as the recording did (or passes, if it passed).
func aggReplay(t *testing.T, body func(), log *record.Log, want *sched.Failure, n int) {
	t.Helper()
	for i := range n {
		out, err := Run(body, log, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !out.Faithful {
			t.Fatalf("replay %d not faithful: %v", i, out.Problems)
		}
		got := out.Result.Failure
		switch {
		case want == nil && got != nil:
			t.Fatalf("replay %d failed (%v: %s); the recording passed", i, got.Kind, got.Message)
		case want != nil && got == nil:
			t.Fatalf("replay %d passed; the recording failed with %q", i, want.Message)
		case want != nil && (got.Kind != want.Kind || got.Message != want.Message):
			t.Fatalf("replay %d failed with %v %q, the recording with %v %q", i, got.Kind, got.Message, want.Kind, want.Message)
		}
	}
}

func TestAggrePlayReplaysFailure(t *testing.T) {
	for _, workers := range []int{2, 3} {
		t.Run(fmt.Sprint(workers), func(t *testing.T) {
			body := aggLostUpdate(workers)
			dir := t.TempDir()
			for run := range 5000 {
				res, log := aggRecord(t, body, dir)
				os.Remove(res.Log)
				if res.Failure == nil {
					continue
				}
				if res.Failure.Kind != sched.Panic {
					t.Fatalf("recorded run %d failed with %v: %s", run, res.Failure.Kind, res.Failure.Message)
				}
				t.Logf("run %d failed: %s (%d events, %d bytes)", run, res.Failure.Message, res.Events, res.Bytes)
				aggReplay(t, body, log, res.Failure, 20)
				return
			}
			t.Skip("no recorded run failed in 5000")
		})
	}
}

func TestAggrePlayReplaysPass(t *testing.T) {
	body := aggLostUpdate(3)
	dir := t.TempDir()
	for range 200 {
		res, log := aggRecord(t, body, dir)
		os.Remove(res.Log)
		if res.Failure == nil {
			aggReplay(t, body, log, nil, 20)
			return
		}
	}
	t.Skip("no recorded run passed")
}

// Every recorded run replays faithfully, whether it failed or not.
func TestAggrePlayReplaysAny(t *testing.T) {
	body := aggLostUpdate(3)
	dir := t.TempDir()
	for range 30 {
		res, log := aggRecord(t, body, dir)
		os.Remove(res.Log)
		aggReplay(t, body, log, res.Failure, 1)
	}
}

// A log whose order is not the recorded one, or whose vector asks for a
// read that never happens, is not followed silently: the replay says so.
func TestAggrePlayOracle(t *testing.T) {
	log := &record.Log{Algorithm: "aggreplay", Complete: true,
		Threads: []record.ThreadLog{{ID: "0", Ops: 4}, {ID: "0.1", Ops: 4},
			{ID: "0.2", Ops: 4, Entries: []record.Entry{{Tag: record.AggEX, N: 2, Args: []uint64{0, 1, 2, 1}}}}},
		Locs: [][]record.Entry{nil, {
			{Tag: record.AggW, Args: []uint64{0, 1}},
			{Tag: record.AggW, Args: []uint64{2, 2}},
		}}}
	o, err := planAggrePlay(log)
	if err != nil {
		t.Fatal(err)
	}
	w0 := Access{Thread: 0, N: 1, Loc: 1, Kind: sched.Write}
	w2 := Access{Thread: 2, N: 2, Loc: 1, Kind: sched.Write}
	r1 := Access{Thread: 1, N: 1, Loc: 1, Kind: sched.Read}
	r1b := Access{Thread: 1, N: 2, Loc: 1, Kind: sched.Read}
	if o.Allow(w2) {
		t.Error("the second write of W_x allowed first")
	}
	if !o.Allow(r1) {
		t.Error("a first read of the initial value refused")
	}
	if !o.Allow(w0) {
		t.Error("the head of W_x refused")
	}
	o.Performed(w0)
	if o.Allow(r1) {
		t.Error("a read of the initial value allowed after the first write")
	}
	if o.Allow(w2) {
		t.Error("a write allowed before the reads of its RC vector")
	}
	// Thread 1's reads carry no WR entry: the first read the initial value.
	o2, _ := planAggrePlay(log)
	o2.Performed(r1)
	o2.Performed(w0)
	if o2.Allow(w2) {
		t.Error("a write allowed with 1 of the 2 reads of its RC vector")
	}
	if o2.Allow(r1b) {
		t.Error("a read without WR entry allowed after the write its previous read did not read")
	}
}

func TestAggrePlayPlannerRejects(t *testing.T) {
	bad := []*record.Log{
		{Threads: []record.ThreadLog{{ID: "0", Ops: 2}}, Locs: [][]record.Entry{nil, {{Tag: record.AggW, Args: []uint64{1, 1}}}}},
		{Threads: []record.ThreadLog{{ID: "0", Ops: 2}}, Locs: [][]record.Entry{nil, {{Tag: record.AggW, Args: []uint64{0, 9}}}}},
		{Threads: []record.ThreadLog{{ID: "0", Ops: 2}}, Locs: [][]record.Entry{nil, {{Tag: 20, Args: []uint64{0, 1}}}}},
		{Threads: []record.ThreadLog{{ID: "0", Ops: 2, Entries: []record.Entry{{Tag: record.AggEX, N: 1, Args: []uint64{1, 5}}}}},
			Locs: [][]record.Entry{nil, {{Tag: record.AggW, Args: []uint64{0, 1}}}}},
		{Threads: []record.ThreadLog{{ID: "0", Ops: 2, Entries: []record.Entry{{Tag: record.AggRead, N: 1, Args: []uint64{3, 1}}}}}},
		{Threads: []record.ThreadLog{{ID: "0", Ops: 2, Entries: []record.Entry{{Tag: record.AggEX, N: 2, Args: []uint64{1, 1}}}}}},
	}
	for i, l := range bad {
		if _, err := planAggrePlay(l); err == nil {
			t.Errorf("log %d accepted", i)
		}
	}
}

// aggSynthetic makes a log of arbitrary entries out of data, for the
// planner to reject or plan, never to panic on.
func aggSynthetic(data []byte) *record.Log {
	next := func() uint64 {
		v, n := binary.Uvarint(data)
		if n <= 0 {
			data = nil
			return 0
		}
		data = data[n:]
		return v
	}
	l := &record.Log{Algorithm: "aggreplay", Complete: true}
	nt := int(next()%4) + 1
	for i := range nt {
		l.Threads = append(l.Threads, record.ThreadLog{ID: fmt.Sprint(i), Ops: next() % 64})
	}
	l.Locs = make([][]record.Entry, int(next()%4)+1)
	for len(data) > 0 {
		e := record.Entry{Tag: uint8(next() % 32), N: next() % 64}
		for range next() % 8 {
			e.Args = append(e.Args, next()%70)
		}
		if s := next() % uint64(nt+len(l.Locs)); s < uint64(nt) {
			l.Threads[s].Entries = append(l.Threads[s].Entries, e)
		} else {
			s -= uint64(nt)
			l.Locs[s] = append(l.Locs[s], e)
		}
	}
	return l
}

func FuzzAggreplayLog(f *testing.F) {
	body := aggLostUpdate(2)
	res, _ := aggRecord(f, body, f.TempDir())
	if data, err := os.ReadFile(res.Log); err == nil {
		f.Add(data)
	}
	os.Remove(res.Log)
	f.Add([]byte("weft log v1\n"))
	f.Add([]byte{3, 2, 5, 1, 8, 0, 3, 1, 5})
	f.Fuzz(func(t *testing.T, data []byte) {
		logs := []*record.Log{aggSynthetic(data)}
		if l, err := record.Parse(data); err == nil {
			logs = append(logs, l)
		}
		for _, l := range logs {
			o, err := planAggrePlay(l)
			if err != nil {
				continue
			}
			// Drive the oracle with arbitrary accesses.
			for i, b := range data {
				a := Access{Thread: int(b) % len(l.Threads), N: uint64(i % 8), Loc: uint32(b>>4) % 4, Kind: sched.Access(b>>2) % 4}
				if o.Allow(a) || i%3 == 0 {
					o.Performed(a)
				}
			}
		}
	})
}

// aggAtomicLostUpdate is a lost update on atomics: a Load and a Store
// that are each atomic, but not together; the last finisher (by an Add)
// checks, after a CompareAndSwap that fails or not depending on the
// interleaving.
func aggAtomicLostUpdate(workers int) func() {
	return func() {
		var x, done, flag sim.Int64
		for i := range workers {
			sim.Go(func() {
				v := x.Load()
				x.Store(v + 1)
				flag.CompareAndSwap(0, int64(i+1))
				if done.Add(1) == int64(workers) {
					if got := x.Load(); got != int64(workers) {
						panic(fmt.Sprintf("lost update: got %d want %d", got, workers))
					}
				}
			})
		}
	}
}

func TestAggrePlayAtomics(t *testing.T) {
	body := aggAtomicLostUpdate(3)
	dir := t.TempDir()
	var failed, passed bool
	for run := 0; run < 5000 && !(failed && passed); run++ {
		res, log := aggRecord(t, body, dir)
		os.Remove(res.Log)
		if !res.Complete {
			t.Fatalf("run %d incomplete: %+v", run, res.Failure)
		}
		switch {
		case res.Failure == nil && !passed:
			passed = true
			aggReplay(t, body, log, nil, 20)
		case res.Failure != nil && !failed:
			failed = true
			t.Logf("run %d failed: %s", run, res.Failure.Message)
			aggReplay(t, body, log, res.Failure, 20)
		}
	}
	if !failed {
		t.Skip("no recorded run failed in 5000")
	}
}
