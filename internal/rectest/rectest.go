// Package rectest holds the helpers of the recording algorithms' tests:
// recording a body once or until it fails, replaying a log and checking
// the replay, driving an oracle, reading fuzz input.
package rectest

import (
	"encoding/binary"
	"fmt"
	"os"
	"testing"

	"github.com/weftdev/weft/record"
	"github.com/weftdev/weft/replay"
	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
)

// LostUpdate is a flaky body: workers increment a counter rounds times
// each, with the read and the write in separate critical sections, and
// the last one to finish checks the total.
func LostUpdate(workers, rounds int) func() {
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

// Recorder returns the recorder registered as name.
func Recorder(t testing.TB, name string) record.Recorder {
	t.Helper()
	rec, err := record.New(name)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// ByName returns a function that makes recorders registered as name.
func ByName(t testing.TB, name string) func() record.Recorder {
	return func() record.Recorder { return Recorder(t, name) }
}

// RecordOnce records body once with rec and returns the result and the
// decoded log; the log file is removed.
func RecordOnce(t testing.TB, rec record.Recorder, body func(), dir string) (*record.Result, *record.Log) {
	t.Helper()
	return RecordOnceWith(t, rec, body, record.Options{Dir: dir})
}

// RecordOnceWith is RecordOnce with options o.
func RecordOnceWith(t testing.TB, rec record.Recorder, body func(), o record.Options) (*record.Result, *record.Log) {
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

// RecordBytes records body once with rec and returns the log file's
// bytes; the log file is removed.
func RecordBytes(t testing.TB, rec record.Recorder, body func()) []byte {
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

// RecordFailure records body with a recorder of newRec until a run fails,
// at most tries times, and returns that run's result, its log and the
// number of runs; the test is skipped if none failed.
func RecordFailure(t *testing.T, newRec func() record.Recorder, body func(), tries int) (*record.Result, *record.Log, int) {
	t.Helper()
	dir := t.TempDir()
	for runs := 1; runs <= tries; runs++ {
		res, log := RecordOnce(t, newRec(), body, dir)
		if res.Failure != nil {
			return res, log, runs
		}
	}
	t.Skipf("no recorded run failed in %d", tries)
	return nil, nil, 0
}

// ReplayPass records body with a recorder of newRec until a run passes,
// at most tries times, and replays it n times, each faithful and passing;
// the test is skipped if no run passed.
func ReplayPass(t *testing.T, newRec func() record.Recorder, body func(), tries, n int) {
	t.Helper()
	dir := t.TempDir()
	for range tries {
		res, log := RecordOnce(t, newRec(), body, dir)
		if res.Failure == nil {
			ReplayN(t, body, log, nil, n)
			return
		}
	}
	t.Skip("no recorded run passed")
}

// ReplayN replays log n times and checks that every replay is faithful
// and fails as the recording did (or passes, if it passed).
func ReplayN(t *testing.T, body func(), log *record.Log, want *sched.Failure, n int) {
	t.Helper()
	for i := range n {
		out, err := replay.Run(body, log, replay.Options{})
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

// Entry builds a location or thread entry.
func Entry(tag uint8, n uint64, args ...uint64) record.Entry {
	return record.Entry{Tag: tag, N: n, Args: args}
}

// OracleStep is an access offered to an oracle and whether it must be
// allowed.
type OracleStep struct {
	A     record.Access
	Allow bool
}

// DriveSteps offers o the accesses of steps in turn, checking each is
// allowed or not as said, and performs those allowed.
func DriveSteps(t *testing.T, o record.Oracle, steps []OracleStep) {
	t.Helper()
	for i, s := range steps {
		if got := o.Allow(s.A); got != s.Allow {
			t.Fatalf("step %d: Allow(%v) = %v, want %v", i, s.A, got, s.Allow)
		}
		if s.Allow {
			o.Performed(s.A)
		}
	}
}

// FuzzInput reads uvarints off fuzz bytes; a bad one ends them.
type FuzzInput struct{ Data []byte }

// Next returns the next uvarint, or 0 once the bytes are used up.
func (in *FuzzInput) Next() uint64 {
	v, n := binary.Uvarint(in.Data)
	if n <= 0 {
		in.Data = nil
		return 0
	}
	in.Data = in.Data[n:]
	return v
}

// RecordLog records body with rec and returns the result and the decoded
// log; the log file is removed. The run must pass and be complete, and
// the log be rec's.
func RecordLog(t *testing.T, rec record.Recorder, body func()) (*record.Result, *record.Log) {
	t.Helper()
	res, log := RecordOnce(t, rec, body, t.TempDir())
	if res.Failure != nil {
		t.Fatalf("recorded run failed: %s", res.Failure.Message)
	}
	if !res.Complete {
		t.Fatal("recorded run incomplete")
	}
	if log.Algorithm != rec.Algorithm() || !log.Complete {
		t.Fatalf("log of %q, complete %v; want %q, complete", log.Algorithm, log.Complete, rec.Algorithm())
	}
	return res, log
}

// Touched returns the location thread th touched first at its operation n.
func Touched(t *testing.T, log *record.Log, th int, n uint64) uint32 {
	t.Helper()
	for _, e := range log.Threads[th].Entries {
		if e.Tag == record.TagTouch && e.N == n {
			return uint32(e.Args[0])
		}
	}
	t.Fatalf("goroutine %d logged no touch at operation %d", th, n)
	return 0
}
