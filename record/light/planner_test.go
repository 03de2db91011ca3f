package light

import (
	"fmt"
	"strings"
	"testing"

	"github.com/weftdev/weft/internal/rectest"
	"github.com/weftdev/weft/internal/workload"
	"github.com/weftdev/weft/record"
	"github.com/weftdev/weft/replay"
	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
)

// Guard modes of lightLostUpdate.
const (
	lightKeepGuard  = iota // the Vars always under the Mutex: Lemma 4.2 applies
	lightNoGuard           // a first read without the lock: everything logged
	lightBreakGuard        // the check reads the counter without the lock, late
)

// lightLostUpdate: workers add to a counter, reading and writing it in
// separate critical sections; the last one to finish checks the total
// (with lightBreakGuard, a checker goroutine waits for them all under the
// lock, then checks the counter without it, which breaks its guard after
// all the skipped accesses, with no data race).
func lightLostUpdate(workers int, mode int) func() {
	return func() {
		var m sim.Mutex
		c, done := sim.NewVar(0), sim.NewVar(0)
		if mode == lightNoGuard {
			_ = c.Load()
			_ = done.Load()
		}
		check := func() {
			if got := c.Load(); got != workers {
				panic(fmt.Sprintf("lost update: got %d want %d", got, workers))
			}
		}
		for range workers {
			sim.Go(func() {
				m.Lock()
				x := c.Load()
				m.Unlock()
				m.Lock()
				c.Store(x + 1)
				m.Unlock()
				m.Lock()
				defer m.Unlock()
				d := done.Load() + 1
				done.Store(d)
				if d == workers && mode != lightBreakGuard {
					check()
				}
			})
		}
		if mode == lightBreakGuard {
			sim.Go(func() {
				for {
					m.Lock()
					d := done.Load()
					m.Unlock()
					if d == workers {
						break
					}
					sim.Yield()
				}
				check()
			})
		}
	}
}

func TestLightReplayFailure(t *testing.T) {
	for mode, name := range []string{"guarded", "unguarded", "guard-broken"} {
		t.Run(name, func(t *testing.T) {
			body := lightLostUpdate(3, mode)
			res, log, runs := rectest.RecordFailure(t, rectest.ByName(t, "light"), body, 5000)
			if !strings.HasPrefix(res.Failure.Message, "lost update: got ") {
				t.Fatalf("recorded failure %v: %s", res.Failure.Kind, res.Failure.Message)
			}
			t.Logf("failed after %d runs: %s (%d events, %d bytes of log)", runs, res.Failure.Message, res.Events, res.Bytes)
			if mode == lightBreakGuard && !lightHas(log, tagBarrier) {
				t.Fatal("the broken guard logged no barrier")
			}
			rectest.ReplayN(t, body, log, res.Failure, 20)
		})
	}
}

func TestLightReplayPass(t *testing.T) {
	for mode, name := range []string{"guarded", "unguarded", "guard-broken"} {
		t.Run(name, func(t *testing.T) {
			rectest.ReplayPass(t, rectest.ByName(t, "light"), lightLostUpdate(3, mode), 100, 5)
		})
	}
}

// lightCodeLog codes the Light entries of a hand-made log, written with
// plain locations and writer counters, as recorder.go codes them:
// locations and other goroutines' counters as zigzag deltas to the
// stream's previous ones, locations and writer codes packed.
func lightCodeLog(log *record.Log) *record.Log {
	zz := func(d int64) uint64 { return uint64(d<<1) ^ uint64(d>>63) }
	for i := range log.Threads {
		var prevLoc uint64
		prevN := map[uint64]uint64{}
		es := log.Threads[i].Entries
		for k, e := range es {
			args := append([]uint64(nil), e.Args...)
			loc, who := argRoles(e.Tag)
			if loc {
				args[0], prevLoc = zz(int64(args[0]-prevLoc)), args[0]
			}
			if who >= 0 && args[who] >= 2 {
				c, v := args[who], args[who+1]
				args[who+1], prevN[c] = zz(int64(v-prevN[c])), v
			}
			if e.Tag == tagRead || e.Tag == tagWrite || e.Tag == tagBarrier {
				// location<<3 | code, and code-7 if the code is 7 or more
				if args[1] < 7 {
					args = append([]uint64{args[0]<<3 | args[1]}, args[2:]...)
				} else {
					args = append([]uint64{args[0]<<3 | 7, args[1] - 7}, args[2:]...)
				}
			}
			es[k].Args = args
		}
	}
	return log
}

// The solver and the oracle on a hand-made log: goroutine 0 writes
// location 1 at 1 and 3 (a blind write at 2 of location 2); goroutine 1
// reads the write at 1 twice (operations 1..2), so the write at 3 waits for
// its last read.
func TestLightOrder(t *testing.T) {
	log := &record.Log{Algorithm: "light", Complete: true, Threads: []record.ThreadLog{
		{ID: "0", Ops: 3, Entries: []record.Entry{
			rectest.Entry(tagWrite, 1, 1, 0, 0),
			rectest.Entry(tagWrite, 2, 2, 0, 0),
			rectest.Entry(tagWriteOwn, 3, 1),
		}},
		{ID: "0.1", Ops: 2, Entries: []record.Entry{
			rectest.Entry(tagRead, 1, 1, 2, 1, 1),
		}},
	}}
	o, err := planLight(lightCodeLog(log))
	if err != nil {
		t.Fatal(err)
	}
	w := func(n uint64) record.Access { return record.Access{Thread: 0, N: n, Kind: sched.Write} }
	r := func(n uint64) record.Access { return record.Access{Thread: 1, N: n, Kind: sched.Read} }
	steps := []rectest.OracleStep{{A: r(1), Allow: false}, {A: w(1), Allow: true}, {A: w(2), Allow: true}, {A: w(3), Allow: false}, {A: r(1), Allow: true}, {A: w(3), Allow: false}, {A: r(2), Allow: true}, {A: w(3), Allow: true}}
	rectest.DriveSteps(t, o, steps)
	// A cycle: goroutine 1 reads the write at 3 of goroutine 0, whose
	// operation 1 has a barrier after goroutine 1's operation 2.
	log.Threads[0].Entries = append(log.Threads[0].Entries, rectest.Entry(tagBarrier, 1, 4, 3, 2))
	log.Threads[1].Entries = []record.Entry{rectest.Entry(tagRead, 1, 1, 2, 3, 0), rectest.Entry(tagWrite, 2, 4, 0, 0)}
	if _, err := planLight(lightCodeLog(log)); err == nil {
		t.Fatal("a cyclic log was solved")
	}
}

// An unlogged write (goroutine 0's write at 3 overwrites its own write at
// 1, and the recorder does not log it) is held while a logged interval
// reading its predecessor is open; a logged write that names it as its
// predecessor (goroutine 1's at 3) waits for it by identity.
func TestLightHoldsUnloggedWrite(t *testing.T) {
	log := &record.Log{Algorithm: "light", Complete: true, Threads: []record.ThreadLog{
		{ID: "0", Ops: 3, Entries: []record.Entry{
			rectest.Entry(tagWrite, 1, 1, 0, 0),
			rectest.Entry(tagWrite, 2, 2, 0, 0),
		}},
		{ID: "0.1", Ops: 3, Entries: []record.Entry{
			rectest.Entry(tagRead, 1, 1, 2, 1, 1),
			rectest.Entry(tagWrite, 3, 1, 2, 3),
		}},
	}}
	o, err := planLight(lightCodeLog(log))
	if err != nil {
		t.Fatal(err)
	}
	w := func(th int, n uint64) record.Access {
		return record.Access{Thread: th, N: n, Loc: 1, Kind: sched.Write}
	}
	r := func(n uint64) record.Access { return record.Access{Thread: 1, N: n, Loc: 1, Kind: sched.Read} }
	w2 := record.Access{Thread: 0, N: 2, Loc: 2, Kind: sched.Write}
	steps := []rectest.OracleStep{
		{A: r(1), Allow: false}, {A: w(0, 1), Allow: true}, {A: w2, Allow: true},
		{A: w(0, 3), Allow: false}, // the interval [1, 2] of goroutine 1 reads 1
		{A: r(1), Allow: true}, {A: w(0, 3), Allow: false}, {A: r(2), Allow: true},
		{A: w(1, 3), Allow: false}, // its predecessor, goroutine 0's 3, is not performed
		{A: w(0, 3), Allow: true}, {A: w(1, 3), Allow: true},
	}
	rectest.DriveSteps(t, o, steps)
}

// A guarded access that the recorder skipped: the barrier waits for it.
func TestLightBarrierWaits(t *testing.T) {
	log := &record.Log{Algorithm: "light", Complete: true, Threads: []record.ThreadLog{
		{ID: "0", Ops: 2, Entries: []record.Entry{rectest.Entry(tagWrite, 1, 1, 0, 0)}},
		{ID: "0.1", Ops: 1, Entries: []record.Entry{rectest.Entry(tagBarrier, 1, 2, 2, 2), rectest.Entry(tagRead, 1, 2, 2, 2, 0)}},
	}}
	o, err := planLight(lightCodeLog(log))
	if err != nil {
		t.Fatal(err)
	}
	a := func(th int, n uint64) record.Access { return record.Access{Thread: th, N: n, Kind: sched.Write} }
	o.Performed(a(0, 1))
	if o.Allow(a(1, 1)) {
		t.Fatal("the barrier did not wait for the skipped access 2")
	}
	if !o.Allow(a(0, 2)) {
		t.Fatal("the skipped access is not free")
	}
	o.Performed(a(0, 2))
	if !o.Allow(a(1, 1)) {
		t.Fatal("the barrier still waits")
	}
}

// FuzzLightLog: arbitrary bytes, parsed and planned, give an error or an
// oracle, never a panic; the oracle's answers on the log's own accesses
// never panic either.
func FuzzLightLog(f *testing.F) {
	f.Add(rectest.RecordBytes(f, rectest.Recorder(f, "light"), lightLostUpdate(2, lightNoGuard)))
	f.Add(rectest.RecordBytes(f, rectest.Recorder(f, "light"), lightLostUpdate(2, lightKeepGuard)))
	f.Add(rectest.RecordBytes(f, rectest.Recorder(f, "light"), lightLostUpdate(2, lightBreakGuard)))
	f.Add([]byte("weft log v1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		log, err := record.Parse(data)
		if err != nil {
			return
		}
		o, err := planLight(log)
		if err != nil {
			return
		}
		for i, th := range log.Threads {
			for n := uint64(1); n <= th.Ops && n < 1000; n++ {
				a := record.Access{Thread: i, N: n, Kind: sched.Read}
				if o.Allow(a) {
					o.Performed(a)
				}
			}
		}
		o.Allow(record.Access{Thread: -1})
		o.Performed(record.Access{Thread: len(log.Threads) + 3})
	})
}

// lightBenchBody: workers goroutines, each making ops Mutex-protected
// read-then-write steps on a few shared Vars; with unguarded, a first read
// without the lock, so that Lemma 4.2 does not apply and every dependence
// is logged.
func lightBenchBody(workers, ops int, unguarded bool) func() {
	return func() {
		var m sim.Mutex
		vs := []*sim.Var[int]{sim.NewVar(0), sim.NewVar(0), sim.NewVar(0), sim.NewVar(0)}
		if unguarded {
			for _, v := range vs {
				_ = v.Load()
			}
		}
		for w := range workers {
			sim.Go(func() {
				for i := range ops {
					v := vs[(i+w)%len(vs)]
					m.Lock()
					x := v.Load()
					v.Store(x + 1)
					m.Unlock()
				}
			})
		}
	}
}

func BenchmarkLightSolve(b *testing.B) {
	for _, events := range []int{1e4, 1e5, 1e6} {
		b.Run(fmt.Sprint(events), func(b *testing.B) {
			const workers = 4
			res, log := rectest.RecordOnce(b, rectest.Recorder(b, "light"), lightBenchBody(workers, events/workers/4, true), b.TempDir())
			logged := 0
			for _, th := range log.Threads {
				logged += len(th.Entries)
			}
			b.ResetTimer()
			for b.Loop() {
				if _, err := solveLight(log); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(res.Events), "events")
			b.ReportMetric(float64(logged), "entries")
			b.ReportMetric(float64(res.Bytes), "logbytes")
		})
	}
}

// The log size win of Lemma 4.2 (locations always accessed under one
// mutex log nothing) and of Lemma 4.3 (a goroutine's reads of one write
// are one interval), on the same program; and both replays are faithful.
func TestLightLogSizeWin(t *testing.T) {
	dir := t.TempDir()
	measure := func(body func()) (events uint64, bytes int64, entries, reads, folded int, locs map[uint64]bool) {
		res, log := rectest.RecordOnce(t, rectest.Recorder(t, "light"), body, dir)
		locs = map[uint64]bool{}
		for _, th := range log.Threads {
			st := lightStream{} // its locations: deltas to the stream's previous one
			for _, e := range lightDecoded(t, log, th) {
				entries++
				switch e.Tag {
				case tagRead:
					reads++
					folded += int(e.Args[3])
					locs[st.loc(e.Args[0])] = true
				case tagWrite, tagBarrier:
					locs[st.loc(e.Args[0])] = true
				}
			}
		}
		out, err := replay.Run(body, log, replay.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !out.Faithful || out.Result.Failure != nil {
			t.Fatalf("replay: faithful %v, failure %+v, problems %v", out.Faithful, out.Result.Failure, out.Problems)
		}
		return res.Events, res.Bytes, entries, reads, folded, locs
	}
	// How many entries a free run logs depends on how often the lock
	// changed hands in it; which locations have entries does not: the
	// guarded run logs the mutex's dependences alone, the unguarded one
	// the four Vars' too.
	ge, gb, gn, _, _, glocs := measure(lightBenchBody(2, 500, false))
	ue, ub, un, _, _, ulocs := measure(lightBenchBody(2, 500, true))
	t.Logf("Lemma 4.2: guarded: %d events, %d log bytes, %d entries on %d locations; unguarded: %d events, %d bytes, %d entries on %d locations", ge, gb, gn, len(glocs), ue, ub, un, len(ulocs))
	if len(glocs) > 1 || len(ulocs) < len(glocs)+4 {
		t.Errorf("the guarded run logged entries on %d locations, the unguarded on %d: want the mutex alone, and the mutex and 4 Vars", len(glocs), len(ulocs))
	}
	// Lemma 4.3: one goroutine reading a Var another wrote, many times.
	_, _, _, reads, folded, _ := measure(func() {
		v := sim.NewVar(0)
		_ = v.Load()
		var m sim.Mutex
		sim.Go(func() { m.Lock(); v.Store(1); m.Unlock() })
		sum := 0
		for range 1000 {
			m.Lock()
			sum += v.Load()
			m.Unlock()
		}
		_ = sum
	})
	t.Logf("Lemma 4.3: %d read intervals logged for 1000 reads (the intervals span %d operations)", reads, reads+folded)
	if reads > 10 {
		t.Errorf("%d read intervals for one goroutine's reads of at most 2 writes", reads)
	}
}

// lightDecoded returns the Light entries of th, copies and repeats
// expanded, locations and writer codes unpacked (the deltas left coded).
func lightDecoded(t *testing.T, log *record.Log, th record.ThreadLog) []record.Entry {
	t.Helper()
	es, err := lightUncopy(th.Entries, th.Ops)
	if err != nil {
		t.Fatal(err)
	}
	st := &lightStream{prevN: make([]uint64, len(log.Threads))}
	for k, e := range es {
		if e, err = st.expand(e); err == nil && (e.Tag == tagRead || e.Tag == tagWrite || e.Tag == tagBarrier) {
			e, err = lightUnpack(e)
		}
		if err != nil {
			t.Fatal(err)
		}
		es[k] = e
	}
	return es
}

func lightHas(log *record.Log, tag uint8) bool {
	for _, th := range log.Threads {
		for _, e := range th.Entries {
			if e.Tag == tag {
				return true
			}
		}
	}
	return false
}

// Atomics: a lost update through separate atomic Load and Store (no data
// race), replayed from the recording of a failing run.
func TestLightReplayAtomics(t *testing.T) {
	const workers, ops = 2, 50
	body := func() {
		var a, done sim.Int64
		for range workers {
			sim.Go(func() {
				for range ops {
					x := a.Load()
					a.Store(x + 1)
				}
				if done.Add(1) == workers {
					if got := a.Load(); got != workers*ops {
						panic(fmt.Sprintf("lost update: got %d want %d", got, workers*ops))
					}
				}
			})
		}
	}
	dir := t.TempDir()
	var res *record.Result
	var log *record.Log
	for range 2000 {
		res, log = rectest.RecordOnce(t, rectest.Recorder(t, "light"), body, dir)
		if res.Failure != nil {
			break
		}
	}
	if res.Failure == nil {
		t.Skip("no lost update in 2000 recorded runs")
	}
	for i := range 20 {
		out, err := replay.Run(body, log, replay.Options{})
		if err != nil {
			t.Fatal(err)
		}
		f := out.Result.Failure
		if !out.Faithful || f == nil || f.Message != res.Failure.Message {
			t.Fatalf("replay %d: faithful %v, failure %+v, want %q; problems %v", i, out.Faithful, f, res.Failure.Message, out.Problems)
		}
	}
}

// The workloads of internal/workload, recorded and replayed faithfully, the
// pipeline included: its unbuffered channel has several receivers waiting,
// and an operation on it is its arrival, which the log orders (see
// sim/chanrec.go).
func TestLightWorkloads(t *testing.T) {
	for _, w := range append(workload.Correct(2000), workload.Buggy()...) {
		t.Run(w.Name, func(t *testing.T) {
			for range 3 {
				res, log := rectest.RecordOnce(t, rectest.Recorder(t, "light"), w.Body, t.TempDir())
				if !res.Complete {
					t.Fatal("the recorded run was abandoned")
				}
				out, err := replay.Run(w.Body, log, replay.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if !out.Faithful {
					t.Fatalf("not faithful: %v", out.Problems)
				}
				if (res.Failure == nil) != (out.Result.Failure == nil) {
					t.Fatalf("recorded failure %v, replayed %v", res.Failure, out.Result.Failure)
				}
			}
		})
	}
}
