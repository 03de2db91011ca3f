package leap

import (
	"fmt"
	"testing"

	"github.com/weftdev/weft/internal/rectest"
	"github.com/weftdev/weft/record"
	"github.com/weftdev/weft/replay"
	"github.com/weftdev/weft/sched"
)

func TestLeapReplayFailure(t *testing.T) {
	for _, rle := range []bool{false, true} {
		t.Run(fmt.Sprintf("rle=%v", rle), func(t *testing.T) {
			body := rectest.LostUpdate(3, 2)
			newRec := func() record.Recorder { return New(Options{RunLength: rle}) }
			res, log, runs := rectest.RecordFailure(t, newRec, body, 5000)
			t.Logf("failed after %d recorded runs: %s", runs, res.Failure.Message)
			if res.Failure.Kind != sched.Panic {
				t.Fatalf("recorded failure %v: %s", res.Failure.Kind, res.Failure.Message)
			}
			rectest.ReplayN(t, body, log, res.Failure, 20)
		})
	}
}

func TestLeapReplayPass(t *testing.T) {
	rectest.ReplayPass(t, func() record.Recorder { return New(Options{}) }, rectest.LostUpdate(3, 2), 50, 5)
}

// A log whose vector cannot be followed (an access of a goroutine the run
// never makes) replays unfaithfully, without hanging.
func TestLeapReplayBadVector(t *testing.T) {
	body := rectest.LostUpdate(2, 1)
	_, log := rectest.RecordOnce(t, New(Options{}), body, t.TempDir())
	// Reverse every location's vector.
	for loc, es := range log.Locs {
		for i, j := 0, len(es)-1; i < j; i, j = i+1, j-1 {
			es[i], es[j] = es[j], es[i]
		}
		log.Locs[loc] = es
	}
	out, err := replay.Run(body, log, replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if out.Faithful {
		t.Fatal("replay of reversed vectors reported faithful")
	}
}

// The planner rejects malformed vectors.
func TestLeapPlanErrors(t *testing.T) {
	mk := func(es ...record.Entry) *record.Log {
		return &record.Log{Algorithm: "leap", Complete: true,
			Threads: []record.ThreadLog{{ID: "0", Ops: 3}, {ID: "0.1", Ops: 1}},
			Locs:    [][]record.Entry{nil, es}}
	}
	one := func(th uint64) record.Entry { return record.Entry{Tag: tagThread, Args: []uint64{th}} }
	cases := map[string]*record.Log{
		"unknown tag":   mk(record.Entry{Tag: 3}),
		"missing arg":   mk(record.Entry{Tag: tagThread}),
		"no thread":     mk(one(2)),
		"empty run":     mk(record.Entry{Tag: tagRun, Args: []uint64{0, 0}}),
		"too many":      mk(one(1), one(1)),
		"huge run":      mk(record.Entry{Tag: tagRun, Args: []uint64{0, 1 << 63}}, record.Entry{Tag: tagRun, Args: []uint64{0, 1 << 63}}),
		"inline arg":    mk(record.Entry{Tag: tagThread0, Args: []uint64{0}}),
		"inline thread": mk(record.Entry{Tag: tagThread0 + 5}),
	}
	for name, log := range cases {
		if _, err := planLeap(log); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := planLeap(mk(one(0), record.Entry{Tag: tagThread0 + 1}, record.Entry{Tag: tagRun, Args: []uint64{0, 2}})); err != nil {
		t.Errorf("valid log: %v", err)
	}
}

// The oracle: heads, runs, and accesses of unknown locations.
func TestLeapOracle(t *testing.T) {
	th := func(i int) record.Entry { return record.Entry{Tag: tagThread0 + uint8(i)} }
	log := &record.Log{Algorithm: "leap", Complete: true,
		Threads: []record.ThreadLog{{ID: "0", Ops: 10}, {ID: "0.1", Ops: 10}},
		Locs: [][]record.Entry{nil,
			{th(0), th(1), th(1), th(0)},
			{th(1)},
		}}
	o, err := planLeap(log)
	if err != nil {
		t.Fatal(err)
	}
	step := func(thread int, loc uint32, want bool) {
		t.Helper()
		a := record.Access{Thread: thread, Loc: loc}
		if got := o.Allow(a); got != want {
			t.Fatalf("Allow(thread %d, loc %d) = %v, want %v", thread, loc, got, want)
		}
		if want {
			o.Performed(a)
		}
	}
	step(1, 1, false)
	step(0, 1, true)
	step(0, 1, false)
	step(1, 1, true)
	step(1, 1, true)
	step(1, 3, false) // no such location
	// Location 2 has not been named: thread 1 heads it alone.
	step(1, 0, true)
	step(1, 2, false) // popped by the guess
	step(0, 0, false) // thread 0 heads no vector of an unnamed location
	step(0, 1, true)
	step(0, 1, false) // exhausted
}

// FuzzLeapLog feeds arbitrary bytes to the log decoder and the LEAP
// planner, and drives the oracle: errors, never panics.
func FuzzLeapLog(f *testing.F) {
	data := rectest.RecordBytes(f, New(Options{}), rectest.LostUpdate(2, 1))
	f.Add(data)
	f.Add(data[:len(data)/2])
	f.Add([]byte{2, 3, 9, 8, 0, 31, 1, 2, 0, 0, 1})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		if log, err := record.Parse(data); err == nil {
			if o, err := planLeap(log); err == nil {
				leapDrive(o, data, len(log.Threads), len(log.Locs))
			}
		}
		// The same bytes as a log's structure, past the checksum.
		log := leapLogFrom(data)
		if o, err := planLeap(log); err == nil {
			leapDrive(o, data, len(log.Threads), len(log.Locs))
		}
	})
}

// leapLogFrom builds a log from bytes: thread count and operations, then
// location streams of entries.
func leapLogFrom(data []byte) *record.Log {
	log := &record.Log{Algorithm: "leap", Complete: true}
	in := &rectest.FuzzInput{Data: data}
	next := in.Next
	nt := next() % 8
	for i := range nt {
		log.Threads = append(log.Threads, record.ThreadLog{ID: fmt.Sprint(i), Ops: next()})
	}
	nl := next() % 8
	log.Locs = make([][]record.Entry, nl+1)
	for len(in.Data) > 0 {
		loc := next() % (nl + 1)
		e := record.Entry{Tag: uint8(next() % 32)}
		for range next() % 4 {
			e.Args = append(e.Args, next())
		}
		log.Locs[loc] = append(log.Locs[loc], e)
	}
	return log
}

// leapDrive calls the oracle with accesses drawn from data.
func leapDrive(o record.Oracle, data []byte, threads, locs int) {
	if threads == 0 {
		return
	}
	for i := 0; i+1 < len(data) && i < 2048; i += 2 {
		a := record.Access{Thread: int(data[i]) % threads, Loc: uint32(data[i+1]) % uint32(locs+2)}
		if o.Allow(a) || data[i]&0x80 != 0 {
			o.Performed(a)
		}
	}
}

// BenchmarkLeapReplay replays the log of a run of about n accesses.
func BenchmarkLeapReplay(b *testing.B) {
	for _, n := range []int{1e4, 1e5, 1e6} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			const workers = 4
			// Each round is 6 accesses (Lock, Load, Unlock, Lock, Store, Unlock).
			body := rectest.LostUpdate(workers, n/(6*workers))
			res, log := rectest.RecordOnce(b, New(Options{}), body, b.TempDir())
			for b.Loop() {
				out, err := replay.Run(body, log, replay.Options{Sched: sched.Options{MaxSteps: 4 * n}})
				if err != nil {
					b.Fatal(err)
				}
				if !out.Faithful {
					b.Fatalf("unfaithful: %v", out.Problems)
				}
			}
			b.ReportMetric(float64(res.Events), "events")
			b.ReportMetric(float64(res.Bytes)/float64(res.Events), "bytes/event")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(res.Events), "ns/event")
		})
	}
}
