package aggreplay

import (
	"fmt"
	"testing"

	"github.com/weftdev/weft/internal/rectest"
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

func TestAggrePlayReplaysFailure(t *testing.T) {
	for _, workers := range []int{2, 3} {
		t.Run(fmt.Sprint(workers), func(t *testing.T) {
			body := aggLostUpdate(workers)
			res, log, run := rectest.RecordFailure(t, rectest.ByName(t, "aggreplay"), body, 5000)
			if res.Failure.Kind != sched.Panic {
				t.Fatalf("recorded run %d failed with %v: %s", run, res.Failure.Kind, res.Failure.Message)
			}
			t.Logf("run %d failed: %s (%d events, %d bytes)", run, res.Failure.Message, res.Events, res.Bytes)
			rectest.ReplayN(t, body, log, res.Failure, 20)
		})
	}
}

func TestAggrePlayReplaysPass(t *testing.T) {
	rectest.ReplayPass(t, rectest.ByName(t, "aggreplay"), aggLostUpdate(3), 200, 20)
}

// Every recorded run replays faithfully, whether it failed or not.
func TestAggrePlayReplaysAny(t *testing.T) {
	body := aggLostUpdate(3)
	dir := t.TempDir()
	for range 30 {
		res, log := rectest.RecordOnce(t, rectest.Recorder(t, "aggreplay"), body, dir)
		rectest.ReplayN(t, body, log, res.Failure, 1)
	}
}

// A log whose order is not the recorded one, or whose vector asks for a
// read that never happens, is not followed silently: the replay says so.
func TestAggrePlayOracle(t *testing.T) {
	log := &record.Log{Algorithm: "aggreplay", Complete: true,
		Threads: []record.ThreadLog{{ID: "0", Ops: 4}, {ID: "0.1", Ops: 4},
			{ID: "0.2", Ops: 4, Entries: []record.Entry{{Tag: tagEX, N: 2, Args: []uint64{0, 1, 2, 1}}}}},
		Locs: [][]record.Entry{nil, {
			{Tag: tagW, Args: []uint64{0, 1}},
			{Tag: tagW, Args: []uint64{2, 2}},
		}}}
	o, err := planAggrePlay(log)
	if err != nil {
		t.Fatal(err)
	}
	w0 := record.Access{Thread: 0, N: 1, Loc: 1, Kind: sched.Write}
	w2 := record.Access{Thread: 2, N: 2, Loc: 1, Kind: sched.Write}
	r1 := record.Access{Thread: 1, N: 1, Loc: 1, Kind: sched.Read}
	r1b := record.Access{Thread: 1, N: 2, Loc: 1, Kind: sched.Read}
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
		{Threads: []record.ThreadLog{{ID: "0", Ops: 2}}, Locs: [][]record.Entry{nil, {{Tag: tagW, Args: []uint64{1, 1}}}}},
		{Threads: []record.ThreadLog{{ID: "0", Ops: 2}}, Locs: [][]record.Entry{nil, {{Tag: tagW, Args: []uint64{0, 9}}}}},
		{Threads: []record.ThreadLog{{ID: "0", Ops: 2}}, Locs: [][]record.Entry{nil, {{Tag: 20, Args: []uint64{0, 1}}}}},
		{Threads: []record.ThreadLog{{ID: "0", Ops: 2, Entries: []record.Entry{{Tag: tagEX, N: 1, Args: []uint64{1, 5}}}}},
			Locs: [][]record.Entry{nil, {{Tag: tagW, Args: []uint64{0, 1}}}}},
		{Threads: []record.ThreadLog{{ID: "0", Ops: 2, Entries: []record.Entry{{Tag: tagRead, N: 1, Args: []uint64{3, 1}}}}}},
		{Threads: []record.ThreadLog{{ID: "0", Ops: 2, Entries: []record.Entry{{Tag: tagEX, N: 2, Args: []uint64{1, 1}}}}}},
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
	in := &rectest.FuzzInput{Data: data}
	next := in.Next
	l := &record.Log{Algorithm: "aggreplay", Complete: true}
	nt := int(next()%4) + 1
	for i := range nt {
		l.Threads = append(l.Threads, record.ThreadLog{ID: fmt.Sprint(i), Ops: next() % 64})
	}
	l.Locs = make([][]record.Entry, int(next()%4)+1)
	for len(in.Data) > 0 {
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
	f.Add(rectest.RecordBytes(f, rectest.Recorder(f, "aggreplay"), body))
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
				a := record.Access{Thread: int(b) % len(l.Threads), N: uint64(i % 8), Loc: uint32(b>>4) % 4, Kind: sched.Access(b>>2) % 4}
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
		res, log := rectest.RecordOnce(t, rectest.Recorder(t, "aggreplay"), body, dir)
		if !res.Complete {
			t.Fatalf("run %d incomplete: %+v", run, res.Failure)
		}
		switch {
		case res.Failure == nil && !passed:
			passed = true
			rectest.ReplayN(t, body, log, nil, 20)
		case res.Failure != nil && !failed:
			failed = true
			t.Logf("run %d failed: %s", run, res.Failure.Message)
			rectest.ReplayN(t, body, log, res.Failure, 20)
		}
	}
	if !failed {
		t.Skip("no recorded run failed in 5000")
	}
}
