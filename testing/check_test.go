package weft_test

import (
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weftdev/weft/corpus"
	"github.com/weftdev/weft/examples/lostupdate"
	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
	weft "github.com/weftdev/weft/testing"
)

// correct is a program with goroutines, channels, locks and timers and no
// bug: exploration must never report anything about it.
func correct(t *weft.T) {
	var mu sim.Mutex
	var total sim.Var[int]
	jobs := sim.NewChan[int](2)
	results := sim.NewChan[int](0)
	var wg sim.WaitGroup
	for range 3 {
		wg.Go(func() {
			for j := range jobs.All() {
				mu.Lock()
				total.Store(total.Load() + j)
				mu.Unlock()
				results.Send(j * j)
			}
		})
	}
	sim.Go(func() {
		for i := range 4 {
			jobs.Send(i)
		}
		jobs.Close()
	})
	squares := 0
	for range 4 {
		sim.Select(
			sim.OnRecv(results, func(v int) { squares += v }),
			sim.OnRecv(sim.After(time.Hour), func(time.Time) { t.Errorf("timed out") }),
		)
	}
	wg.Wait()
	if total.Load() != 6 || squares != 14 {
		t.Errorf("total %d, squares %d", total.Load(), squares)
	}
}

func TestCorrectProgramSurvivesTenThousandExecutions(t *testing.T) {
	t.Parallel()
	n := 10000
	if testing.Short() {
		n = 1000
	}
	for _, strategy := range []string{"random", "pct"} {
		f, err := weft.Find(correct, weft.Strategy(strategy), weft.Iterations(n/2))
		if err != nil {
			t.Fatal(err)
		}
		if f != nil {
			t.Fatalf("%s: false report: %s", strategy, f.Failure.Summary())
		}
	}
}

// The two tests below run in parallel with each other and with the rest:
// executions of different tests must not interfere.
func TestParallelCheckA(t *testing.T) {
	t.Parallel()
	weft.Check(t, correct, weft.CorpusDir(t.TempDir()), weft.Iterations(300))
}

func TestParallelCheckB(t *testing.T) {
	t.Parallel()
	weft.Check(t, lostupdate.Fixed, weft.CorpusDir(t.TempDir()), weft.Iterations(300))
}

func TestSavedScheduleFailsTheSameWayAHundredTimes(t *testing.T) {
	t.Parallel()
	f, err := weft.Find(lostupdate.Buggy)
	if err != nil || f == nil {
		t.Fatalf("lost update not found: %v", err)
	}
	path, err := corpus.Write(t.TempDir(), f.Entry)
	if err != nil {
		t.Fatal(err)
	}
	entry, err := corpus.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		r, drift, err := weft.Follow(lostupdate.Buggy, entry.Schedule)
		if err != nil {
			t.Fatal(err)
		}
		if r.Failure.Signature() != entry.Signature || r.Hash != entry.Hash || len(drift) != 0 {
			t.Fatalf("replay %d: %s, hash %#x, drift %q; saved: %s, hash %#x", i, r.Failure.Summary(), r.Hash, drift, entry.Failure, entry.Hash)
		}
	}
}

func TestMinimizesToOnePreemption(t *testing.T) {
	t.Parallel()
	for seed := range uint64(10) {
		f, err := weft.Find(lostupdate.Buggy, weft.Seed(seed), weft.Strategy("random"))
		if err != nil || f == nil {
			t.Fatalf("seed %d: not found (%v)", seed, err)
		}
		if f.Minimized.After != 1 {
			t.Errorf("seed %d: %d preemptions after minimization (from %d), want 1:\n%s", seed, f.Minimized.After, f.Minimized.Before, f.Entry.Marshal())
		}
	}
}

func TestFatalfFromAGoroutineEndsTheExecution(t *testing.T) {
	t.Parallel()
	f, err := weft.Find(func(t *weft.T) {
		never := sim.NewChan[int](0)
		sim.Go(func() { t.Fatalf("stop here") })
		never.Recv() // unwound, not reported as a deadlock
	})
	if err != nil || f == nil {
		t.Fatalf("no failure: %v", err)
	}
	if f.Failure.Kind != sched.Error || f.Failure.Message != "stop here" || f.Failure.Goroutine != "0.1" {
		t.Fatalf("got %s", f.Failure.Summary())
	}
	if !strings.HasSuffix(f.Failure.Site, "check_test.go:"+lineOf(t, "stop here")) {
		t.Errorf("site %q", f.Failure.Site)
	}
	if len(f.Final.More) != 0 {
		t.Errorf("more failures after Fatalf: %v", f.Final.More[0].Summary())
	}
}

func TestHelperSkipsSites(t *testing.T) {
	t.Parallel()
	check := func(t *weft.T, ok bool) {
		t.Helper()
		if !ok {
			t.Errorf("check failed")
		}
	}
	f, _ := weft.Find(func(t *weft.T) {
		check(t, false) // the reported site
	})
	if f == nil || !strings.HasSuffix(f.Failure.Site, ":"+lineOf(t, "the reported site")) {
		t.Fatalf("got %+v", f)
	}
}

func TestBlockingOutsideTheControllerIsReported(t *testing.T) {
	t.Parallel()
	var raw sync.Mutex
	raw.Lock()
	// That it is reported at all, rather than hanging the test, is what
	// this checks: no timed assertion, which a loaded machine breaks.
	f, err := weft.Find(func(t *weft.T) {
		raw.Lock() // a sync.Mutex nobody unlocks: weft cannot see it
	}, weft.BlockTimeout(200*time.Millisecond), weft.Iterations(1))
	if err != nil || f == nil {
		t.Fatalf("no failure: %v", err)
	}
	if f.Failure.Kind != sched.Blocked || !strings.Contains(f.Failure.Stack, "check_test.go") {
		t.Fatalf("got %s\n%s", f.Failure.Summary(), f.Failure.Stack)
	}
	raw.Unlock() // the abandoned goroutine wakes up and exits at its next event
}

// A goroutine that blocked outside weft once, and not in the replay of its
// execution (a machine too loaded to run it in time), is no failure to
// save: it is reported as one that does not replay.
func TestBlockedOnceIsNotSaved(t *testing.T) {
	t.Parallel()
	var raw sync.Mutex
	raw.Lock()
	var runs atomic.Int32
	f, err := weft.Find(func(t *weft.T) {
		if runs.Add(1) == 1 {
			raw.Lock() // only in the first execution
		}
	}, weft.BlockTimeout(200*time.Millisecond), weft.Iterations(1))
	raw.Unlock()
	if err != nil || f == nil {
		t.Fatalf("no failure: %v", err)
	}
	if f.Nondeterminism == nil || f.Entry != nil || f.Failure == nil || f.Failure.Kind != sched.Blocked {
		t.Fatalf("got %+v", f)
	}
}

func TestGoroutineThatNeverReachesAnEventIsReported(t *testing.T) {
	t.Parallel()
	var stop atomic.Bool
	defer stop.Store(true)
	f, err := weft.Find(func(t *weft.T) {
		for !stop.Load() { // plain memory: no weft operation, ever
			runtime.Gosched()
		}
	}, weft.BlockTimeout(100*time.Millisecond), weft.Iterations(1))
	if err != nil || f == nil {
		t.Fatalf("no failure: %v", err)
	}
	if f.Failure.Kind != sched.Blocked || !strings.Contains(f.Failure.Message, "without an event of the execution (at check_test.go:") ||
		!strings.Contains(f.Failure.Stack, "check_test.go") {
		t.Fatalf("got %s\n%s", f.Failure.Summary(), f.Failure.Stack)
	}
}

func TestPlainGoStatementIsReportedAsEscape(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	defer close(release)
	f, err := weft.Find(func(t *weft.T) {
		go func() { <-release }() // escapes the controller and outlives the execution
	}, weft.Iterations(1))
	if err != nil || f == nil {
		t.Fatalf("no failure: %v", err)
	}
	if f.Failure.Kind != sched.Escape || len(f.Failure.Waiting) != 1 || !strings.Contains(f.Failure.Waiting[0].Stack, "check_test.go") {
		t.Fatalf("got %s: %+v", f.Failure.Summary(), f.Failure.Waiting)
	}
}

func TestCheckRejectsUnknownStrategy(t *testing.T) {
	t.Parallel()
	_, err := weft.Find(correct, weft.Strategy("bfs"))
	if err == nil || !strings.Contains(err.Error(), `unknown strategy "bfs"`) {
		t.Fatalf("err = %v", err)
	}
}

// lineOf returns the line number of the line of this file holding marker
// in a comment or string.
func lineOf(t *testing.T, marker string) string {
	t.Helper()
	return lineIn(t, "check_test.go", marker)
}
