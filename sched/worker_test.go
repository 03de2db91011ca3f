package sched_test

import (
	"context"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/weftdev/weft/explore"
	"github.com/weftdev/weft/internal/race"
	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
)

// fanOut starts n goroutines that each store to a shared variable.
func fanOut(n int) func() {
	return func() {
		var v sim.Var[int]
		var wg sim.WaitGroup
		for i := range n {
			wg.Go(func() { v.Store(i) })
		}
		wg.Wait()
	}
}

func created() uint64 {
	s := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// Executions in a row run their goroutines on the workers the earlier ones
// left idle, instead of starting a goroutine for each.
func TestWorkersAreReused(t *testing.T) {
	if race.Enabled {
		t.Skip("under the race detector every controlled goroutine has a worker of its own")
	}
	const execs, goroutines = 200, 5 // goroutines: the root and 4 it starts
	before := created()
	for i := range execs {
		r := sched.Run(fanOut(goroutines-1), explore.PCT(uint64(i), 3, 100), sched.Options{})
		if r.Failure != nil {
			t.Fatal(r.Failure.Summary())
		}
	}
	if n := created() - before; n > execs*goroutines/4 {
		t.Errorf("%d executions of %d goroutines created %d goroutines", execs, goroutines, n)
	}
}

// Idle workers stay while an execution runs, however long nothing takes
// them from the pool: the goroutines an execution starts after a pause
// (here, longer than workers may linger) run on the workers of those that
// ended before it.
func TestIdleWorkersStayDuringAnExecution(t *testing.T) {
	if race.Enabled {
		t.Skip("under the race detector every controlled goroutine has a worker of its own")
	}
	const n = 50
	var during uint64
	r := sched.Run(func() {
		alone := sim.NumGoroutine()
		together(n)
		for sim.NumGoroutine() > alone { // until they have all exited
			sim.Yield()
		}
		before := created()
		time.Sleep(300 * time.Millisecond) // real time: six times what idle workers linger
		together(n)
		during = created() - before
	}, explore.RandomWalk(1), sched.Options{BlockTimeout: 10 * time.Second})
	if r.Failure != nil {
		t.Fatal(r.Failure.Summary())
	}
	if during > n/5 {
		t.Errorf("%d goroutines started after the pause created %d goroutines: the workers of the %d before it ended during the execution", n, during, n)
	}
}

// together runs n goroutines that are all live at once: each waits until
// all have started.
func together(n int) {
	start := sim.NewChan[struct{}](0)
	var wg sim.WaitGroup
	for range n {
		wg.Go(func() { start.Recv() })
	}
	start.Close()
	wg.Wait()
}

// Idle workers end once no execution has used them for a while, so that a
// leak checker run after the tests finds none of them.
func TestIdleWorkersEnd(t *testing.T) {
	base := runtime.NumGoroutine()
	r := sched.Run(fanOut(50), explore.RandomWalk(1), sched.Options{})
	if r.Failure != nil {
		t.Fatal(r.Failure.Summary())
	}
	for deadline := time.Now().Add(10 * time.Second); runtime.NumGoroutine() > base; {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines 10s after the execution, %d before it", runtime.NumGoroutine(), base)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A goroutine that replaces its profiler labels leaves its worker unable
// to identify the goroutines it runs next, unless the worker labels itself
// again: later executions run as if it had not.
func TestWorkerRelabelsAfterSetGoroutineLabels(t *testing.T) {
	ctx := pprof.WithLabels(context.Background(), pprof.Labels("user", "label"))
	for i := range 20 {
		r := sched.Run(func() {
			var v sim.Var[int]
			var wg sim.WaitGroup
			for j := range 3 {
				wg.Add(1)
				sim.Go(func() {
					v.Store(j)
					wg.Done()
					if i%2 == 0 { // its last act: it is not found after it
						pprof.SetGoroutineLabels(ctx)
					}
				})
			}
			wg.Wait()
		}, explore.RandomWalk(uint64(i)), sched.Options{BlockTimeout: 10 * time.Second})
		if r.Failure != nil {
			t.Fatalf("execution %d: %s", i, r.Failure.Summary())
		}
	}
}

// OnWorker tells the controlled goroutines from a goroutine one of them
// starts with a plain go statement, which inherits its identity: Current
// returns the same G on both.
func TestOnWorker(t *testing.T) {
	var root, child, plain, same bool
	r := sched.Run(func() {
		root = sched.OnWorker()
		var wg sim.WaitGroup
		wg.Go(func() { child = sched.OnWorker() })
		wg.Wait()
		g := sched.Current()
		done := make(chan bool)
		go func() {
			plain, same = sched.OnWorker(), sched.Current() == g
			close(done)
		}()
		<-done
	}, explore.PCT(1, 3, 100), sched.Options{})
	if r.Failure != nil {
		t.Fatal(r.Failure.Summary())
	}
	if !root || !child || plain || !same || sched.OnWorker() {
		t.Errorf("on a worker: root %v, child %v, plain goroutine %v (same G: %v), test %v", root, child, plain, same, sched.OnWorker())
	}
}
