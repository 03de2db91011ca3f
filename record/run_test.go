package record_test

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/weftdev/weft/record"
	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
)

// nop is a recorder that logs nothing of its own: the framework's streams
// (touches, choices, the trailer) are what these tests look at.
type nop struct{}

func (nop) Algorithm() string                                                  { return "nop" }
func (nop) NewThread(*record.Thread)                                           {}
func (nop) NewLoc(*record.Loc)                                                 {}
func (nop) ReadBegin(*record.Thread, *record.Loc) uint64                       { return 0 }
func (nop) ReadEnd(*record.Thread, *record.Loc, uint64, uint64) bool           { return false }
func (nop) WriteBegin(*record.Thread, *record.Loc)                             {}
func (nop) WriteEnd(*record.Thread, *record.Loc, sched.Access, uint64, uint64) {}
func (nop) Sync(*record.Thread, *record.Loc, sched.Access, uint64)             {}
func (nop) ExitThread(*record.Thread)                                          {}
func (nop) Close([]*record.Loc)                                                {}

// counter: two goroutines add to a Var under a Mutex; the root reads it.
func counter() {
	var mu sim.Mutex
	var x sim.Var[int]
	for range 2 {
		sim.Go(func() {
			for range 10 {
				mu.Lock()
				x.Store(x.Load() + 1)
				mu.Unlock()
			}
		})
	}
	mu.Lock()
	_ = x.Load()
	mu.Unlock()
}

func recordOnce(t *testing.T, body func(), opts record.Options) (*record.Result, *record.Log) {
	t.Helper()
	if opts.Dir == "" {
		opts.Dir = t.TempDir()
	}
	res, err := record.Record(body, nop{}, opts)
	if err != nil {
		t.Fatal(err)
	}
	log, err := record.ReadFile(res.Log)
	if err != nil {
		t.Fatal(err)
	}
	return res, log
}

func TestRecordNamesGoroutinesAndCountsOperations(t *testing.T) {
	res, log := recordOnce(t, counter, record.Options{Name: "TestX"})
	if res.Failure != nil || !res.Complete || !log.Complete {
		t.Fatalf("failure %v, complete %v/%v", res.Failure, res.Complete, log.Complete)
	}
	if log.Algorithm != "nop" || log.Name != "TestX" {
		t.Errorf("header: %q %q", log.Algorithm, log.Name)
	}
	want := map[string]uint64{"0": 2 + 3, "0.1": 40, "0.2": 40}
	if len(log.Threads) != 3 {
		t.Fatalf("%d goroutines, want 3", len(log.Threads))
	}
	var total uint64
	for _, th := range log.Threads {
		if th.Ops != want[th.ID] {
			t.Errorf("goroutine %s: %d operations, want %d", th.ID, th.Ops, want[th.ID])
		}
		total += th.Ops
	}
	if res.Events != total || res.Goroutines != 3 {
		t.Errorf("result: %d events, %d goroutines; log: %d", res.Events, res.Goroutines, total)
	}
	// Each goroutine logs its first touch of the mutex and of the Var.
	for _, th := range log.Threads {
		touches := 0
		for _, e := range th.Entries {
			if e.Tag == record.TagTouch {
				touches++
			}
		}
		if touches != 2 {
			t.Errorf("goroutine %s: %d touches, want 2: %v", th.ID, touches, th.Entries)
		}
	}
	st, err := os.Stat(res.Log)
	if err != nil || st.Size() != res.Bytes {
		t.Errorf("log size %v, result says %d (%v)", st.Size(), res.Bytes, err)
	}
}

func TestRecordReportsPanicsAndErrors(t *testing.T) {
	res, _ := recordOnce(t, func() {
		sim.Go(func() { panic("boom") })
	}, record.Options{})
	if res.Failure == nil || res.Failure.Kind != sched.Panic || res.Failure.Message != "boom" || res.Failure.Goroutine != "0.1" {
		t.Fatalf("failure: %+v", res.Failure)
	}
	if !strings.HasPrefix(res.Failure.Site, "run_test.go:") {
		t.Errorf("site %q, want this file", res.Failure.Site)
	}
}

func TestRecordWatchdogEndsADeadlockedRun(t *testing.T) {
	start := time.Now()
	res, log := recordOnce(t, func() {
		var mu sim.Mutex
		mu.Lock()
		mu.Lock() // blocks forever
	}, record.Options{StallTimeout: 200 * time.Millisecond})
	if res.Complete || log.Complete {
		t.Error("an abandoned run is reported complete")
	}
	if res.Failure == nil {
		t.Fatal("no failure")
	}
	var deadlock bool
	for _, f := range append([]*sched.Failure{res.Failure}, res.More...) {
		deadlock = deadlock || f.Kind == sched.Deadlock && strings.Contains(f.Message, "no progress")
	}
	if !deadlock {
		t.Errorf("failures %v %v, want the watchdog's deadlock", res.Failure, res.More)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the watchdog took %v", d)
	}
}

func TestRecordReportsLockOrderInversion(t *testing.T) {
	// The mutexes' first operation makes their state for the run, which
	// takes the run's choice of lock: a TryLock's as a Lock's.
	for _, first := range []string{"Lock", "TryLock"} {
		t.Run(first, func(t *testing.T) {
			res, _ := recordOnce(t, func() {
				var a, b sim.Mutex
				if first == "Lock" {
					a.Lock()
				} else if !a.TryLock() {
					panic("TryLock of a free mutex failed")
				}
				b.Lock()
				b.Unlock()
				a.Unlock()
				b.Lock()
				a.Lock() // the other order: a potential deadlock
				a.Unlock()
				b.Unlock()
			}, record.Options{LockOrder: true})
			if !res.Complete {
				t.Fatal("the run did not complete")
			}
			if res.Failure == nil || res.Failure.Kind != sched.Deadlock || !strings.Contains(res.Failure.Message, "potential deadlock") {
				t.Fatalf("failure %+v, want go-deadlock's lock-order report", res.Failure)
			}
			if !strings.Contains(res.Failure.Stack, "run_test.go") {
				t.Errorf("report without the locking sites:\n%s", res.Failure.Stack)
			}
		})
	}
}

func validLog(t testing.TB) []byte {
	dir := t.TempDir()
	res, err := record.Record(counter, nop{}, record.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(res.Log)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestParseRejectsTruncatedAndCorruptLogs(t *testing.T) {
	data := validLog(t)
	for n := 0; n < len(data); n++ {
		if _, err := record.Parse(data[:n]); err == nil {
			t.Fatalf("a log truncated to %d of %d bytes parsed", n, len(data))
		}
	}
	for i := len("weft log v1\n"); i < len(data); i++ {
		bad := bytes.Clone(data)
		bad[i] ^= 0x41
		if _, err := record.Parse(bad); err == nil {
			t.Fatalf("a log with byte %d flipped parsed", i)
		} else if !strings.Contains(err.Error(), "corrupt") && !strings.Contains(err.Error(), "truncated") {
			t.Fatalf("byte %d flipped: unclear error %q", i, err)
		}
	}
	if _, err := record.Parse([]byte("weft log v2\n....")); err == nil || !strings.Contains(err.Error(), "not a weft log") {
		t.Errorf("another version: %v", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add(validLog(f))
	f.Add([]byte("weft log v1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		log, err := record.Parse(data)
		if err != nil {
			return
		}
		for _, th := range log.Threads {
			for _, e := range th.Entries {
				if len(e.Args) > 7 {
					t.Fatalf("entry with %d args", len(e.Args))
				}
			}
		}
	})
}
