package weft_test

import (
	"strings"
	"testing"
	"time"

	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
	weft "github.com/weftdev/weft/testing"
)

// A goroutine that logs to its test after the test has completed: go
// test panics "Log in goroutine after TestX has completed" when the
// goroutine runs that late. weft finds the schedule where it does, and
// reports go test's panic, in that goroutine, at the Logf.
func TestLogAfterTheTestCompletedIsGoTestsPanic(t *testing.T) {
	t.Parallel()
	f, err := weft.Find(func(t *weft.T) {
		release := sim.NewChan[bool](0)
		sim.Go(func() {
			release.Recv()
			t.Logf("late %d", 1) // the late log
		})
		release.Close()
	})
	if err != nil || f == nil {
		t.Fatalf("no failure: %v", err)
	}
	if f.Failure.Kind != sched.Panic || f.Failure.Message != "Log in goroutine after Find has completed: late 1" || f.Failure.Goroutine != "0.1" {
		t.Fatalf("got %s", f.Failure.Summary())
	}
	if !strings.HasSuffix(f.Failure.Site, "latelog_test.go:"+lineIn(t, "latelog_test.go", "the late log")) {
		t.Errorf("site %q", f.Failure.Site)
	}
	if f.Entry == nil {
		t.Errorf("not saved: %v", f.Nondeterminism)
	}
}

// An error of a subtest that has completed is go test's panic even while
// its parent runs, naming the subtest (testing.common.Fail).
func TestErrorAfterASubtestCompletedIsGoTestsPanic(t *testing.T) {
	t.Parallel()
	f, err := weft.Find(func(t *weft.T) {
		var wg sim.WaitGroup
		defer wg.Wait()
		release := sim.NewChan[bool](0)
		t.Run("sub", func(t *weft.T) {
			wg.Go(func() {
				release.Recv()
				t.Errorf("boom") // the late error
			})
		})
		release.Close()
	}, weft.Iterations(1))
	if err != nil || f == nil {
		t.Fatalf("no failure: %v", err)
	}
	if f.Failure.Kind != sched.Panic || f.Failure.Message != "Fail in goroutine after Find/sub has completed: boom" {
		t.Fatalf("got %s", f.Failure.Summary())
	}
	if !strings.HasSuffix(f.Failure.Site, "latelog_test.go:"+lineIn(t, "latelog_test.go", "the late error")) {
		t.Errorf("site %q", f.Failure.Site)
	}
}

// What go test allows is no failure in any schedule: a log after the test
// function returned while a deferred Wait waits for the goroutine, a log
// to a subtest that has completed while its parent runs (the line goes to
// the parent), and a log in a deferred call of a goroutine unwound when
// the execution stops after the test (it kept running: AfterFires).
func TestLogWhileTheTestRunsIsNoFailure(t *testing.T) {
	t.Parallel()
	f, err := weft.Find(func(t *weft.T) {
		var wg sim.WaitGroup
		defer wg.Wait()
		wg.Go(func() { t.Logf("in time") })
		t.Run("sub", func(t *weft.T) {
			wg.Go(func() { t.Logf("to the parent, if late for the subtest") })
		})
		sim.Go(func() {
			defer t.Logf("unwound")
			for {
				sim.Sleep(time.Second)
			}
		})
	}, weft.Iterations(300))
	if err != nil || f != nil {
		t.Fatalf("false alarm: %v %v", err, f)
	}
}

// A goroutine that logs while a Cleanup waits for it logs in time, in
// every schedule, under weft test's TB.
func TestLogBeforeTheCleanupsEndIsNoFailure(t *testing.T) {
	t.Parallel()
	weft.Test(t, func(t *weft.TB) {
		var wg sim.WaitGroup
		t.Cleanup(wg.Wait)
		release := sim.NewChan[bool](0)
		wg.Go(func() {
			release.Recv()
			t.Logf("before the cleanup ends")
		})
		release.Close()
	}, weft.CorpusDir(t.TempDir()), weft.Iterations(300))
}

// A goroutine that code weft does not instrument starts (a plain go
// statement) and that logs late keeps its line, as before: it inherits the
// identity of the controlled goroutine that started it, which holds the
// baton meanwhile, and a panic there would end the process.
func TestLateLogOfAPlainGoroutineKeepsTheLine(t *testing.T) {
	t.Parallel()
	f, err := weft.Find(func(t *weft.T) {
		sim.Go(func() {
			done := make(chan bool)
			go func() {
				t.Logf("late, from a plain goroutine")
				close(done)
			}()
			<-done
		})
	}, weft.Iterations(20))
	if err != nil || f != nil {
		t.Fatalf("%v %v", err, f)
	}
}
