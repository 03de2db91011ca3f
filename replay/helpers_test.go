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

// lostUpdate is a flaky body: workers increment a counter rounds times
// each, with the read and the write in separate critical sections, and
// the last one to finish checks the total.
func lostUpdate(workers, rounds int) func() {
	return func() {
		var m sim.Mutex
		c, done := sim.NewVar(0), sim.NewVar(0)
		for range workers {
			sim.Go(func() {
				for range rounds {
					m.Lock()
					x := c.Load()
					m.Unlock()
					m.Lock()
					c.Store(x + 1)
					m.Unlock()
				}
				m.Lock()
				defer m.Unlock()
				d := done.Load() + 1
				done.Store(d)
				if d == workers {
					if got, want := c.Load(), workers*rounds; got != want {
						panic(fmt.Sprintf("lost update: got %d want %d", got, want))
					}
				}
			})
		}
	}
}

// recorder returns the recorder registered as name.
func recorder(t testing.TB, name string) record.Recorder {
	t.Helper()
	rec, err := record.New(name)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// byName returns a function that makes recorders registered as name.
func byName(t testing.TB, name string) func() record.Recorder {
	return func() record.Recorder { return recorder(t, name) }
}

// recordOnce records body once with rec and returns the result and the
// decoded log; the log file is removed.
func recordOnce(t testing.TB, rec record.Recorder, body func(), dir string) (*record.Result, *record.Log) {
	t.Helper()
	return recordOnceWith(t, rec, body, record.Options{Dir: dir})
}

// recordOnceWith is recordOnce with options o.
func recordOnceWith(t testing.TB, rec record.Recorder, body func(), o record.Options) (*record.Result, *record.Log) {
	t.Helper()
	res, err := record.Record(body, rec, o)
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(res.Log)
	log, err := record.ReadFile(res.Log)
	if err != nil {
		t.Fatal(err)
	}
	return res, log
}

// recordBytes records body once with rec and returns the log file's
// bytes; the log file is removed.
func recordBytes(t testing.TB, rec record.Recorder, body func()) []byte {
	t.Helper()
	res, err := record.Record(body, rec, record.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(res.Log)
	os.Remove(res.Log)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// recordFailure records body with a recorder of newRec until a run fails,
// at most tries times, and returns that run's result, its log and the
// number of runs; the test is skipped if none failed.
func recordFailure(t *testing.T, newRec func() record.Recorder, body func(), tries int) (*record.Result, *record.Log, int) {
	t.Helper()
	dir := t.TempDir()
	for runs := 1; runs <= tries; runs++ {
		res, log := recordOnce(t, newRec(), body, dir)
		if res.Failure != nil {
			return res, log, runs
		}
	}
	t.Skipf("no recorded run failed in %d", tries)
	return nil, nil, 0
}

// replayPass records body with a recorder of newRec until a run passes,
// at most tries times, and replays it n times, each faithful and passing;
// the test is skipped if no run passed.
func replayPass(t *testing.T, newRec func() record.Recorder, body func(), tries, n int) {
	t.Helper()
	dir := t.TempDir()
	for range tries {
		res, log := recordOnce(t, newRec(), body, dir)
		if res.Failure == nil {
			replayN(t, body, log, nil, n)
			return
		}
	}
	t.Skip("no recorded run passed")
}

// replayN replays log n times and checks that every replay is faithful
// and fails as the recording did (or passes, if it passed).
func replayN(t *testing.T, body func(), log *record.Log, want *sched.Failure, n int) {
	t.Helper()
	for i := range n {
		out, err := Run(body, log, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !out.Faithful {
			t.Fatalf("replay %d not faithful: %v (failure %s)", i, out.Problems, out.Result.Failure.Summary())
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

// entry builds a location or thread entry.
func entry(tag uint8, n uint64, args ...uint64) record.Entry {
	return record.Entry{Tag: tag, N: n, Args: args}
}

// oracleStep is an access offered to an oracle and whether it must be
// allowed.
type oracleStep struct {
	a     Access
	allow bool
}

// driveSteps offers o the accesses of steps in turn, checking each is
// allowed or not as said, and performs those allowed.
func driveSteps(t *testing.T, o Oracle, steps []oracleStep) {
	t.Helper()
	for i, s := range steps {
		if got := o.Allow(s.a); got != s.allow {
			t.Fatalf("step %d: Allow(%v) = %v, want %v", i, s.a, got, s.allow)
		}
		if s.allow {
			o.Performed(s.a)
		}
	}
}

// fuzzInput reads uvarints off fuzz bytes; a bad one ends them.
type fuzzInput struct{ data []byte }

// next returns the next uvarint, or 0 once the bytes are used up.
func (in *fuzzInput) next() uint64 {
	v, n := binary.Uvarint(in.data)
	if n <= 0 {
		in.data = nil
		return 0
	}
	in.data = in.data[n:]
	return v
}
