package sched_test

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/weftdev/weft/explore"
	"github.com/weftdev/weft/internal/gls"
	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
)

// sequence runs bodies[i] with strategy strat(i) for each i, in one
// RunSequence, and returns the summaries of their Results, released.
func sequence(t *testing.T, bodies []func(), strat func(i int) sched.Strategy, opts sched.Options) []execution {
	t.Helper()
	var got []execution
	given := 0
	sched.RunSequence(func() (func(), sched.Strategy, sched.Options, bool) {
		if given != len(got) {
			t.Errorf("next called for execution %d before done for %d", given, len(got))
		}
		if given == len(bodies) {
			return nil, nil, opts, false
		}
		given++
		return bodies[given-1], strat(given - 1), opts, true
	}, func(r *sched.Result) bool {
		got = append(got, summary(r))
		r.Release()
		return true
	})
	if len(got) != len(bodies) {
		t.Fatalf("%d executions of %d ran", len(got), len(bodies))
	}
	return got
}

// The executions of a sequence are those of Run: same hashes, steps,
// schedules and failures, seed by seed, for both strategies.
func TestSequenceSameExecutions(t *testing.T) {
	const n = 40
	bodies := make([]func(), n)
	for i := range bodies {
		bodies[i] = reuseBody
	}
	for name, strat := range map[string]func(i int) sched.Strategy{
		"random": func(i int) sched.Strategy { return explore.RandomWalk(uint64(i)) },
		"pct":    func(i int) sched.Strategy { return explore.PCT(uint64(i), 3, 40) },
	} {
		sched.Run(reuseBody, explore.RandomWalk(0), sched.Options{}) // as TestReusedControllerSameExecution
		var want []execution
		for i := range n {
			r := sched.Run(reuseBody, strat(i), sched.Options{Verify: true})
			want = append(want, summary(r))
			r.Release()
		}
		got := sequence(t, bodies, strat, sched.Options{Verify: true})
		for i := range n {
			if fmt.Sprint(got[i]) != fmt.Sprint(want[i]) {
				t.Fatalf("%s, seed %d: the sequence ran %+v, Run %+v", name, i, got[i], want[i])
			}
		}
	}
}

// A root that ends through runtime.Goexit, on its own (as t.FailNow does)
// or because the execution aborts (a deadlock, a panic of another
// goroutine), ends the worker that runs the sequence: the executions after
// it run all the same, and as Run runs them.
func TestSequenceRootGoexit(t *testing.T) {
	pass := func() {
		var wg sim.WaitGroup
		var v sim.Var[int]
		wg.Go(func() { v.Store(1) })
		wg.Go(func() { v.Store(2) })
		wg.Wait()
	}
	bodies := []func(){
		pass,
		func() { // the root leaves first, through Goexit
			var v sim.Var[int]
			sim.Go(func() { v.Store(1); v.Store(2) })
			v.Store(3)
			runtime.Goexit()
		},
		pass,
		func() { sim.NewChan[int](0).Recv() }, // a deadlock
		pass,
		func() { // a panic of another goroutine aborts the root, parked
			ch := sim.NewChan[int](0)
			sim.Go(func() { panic("boom") })
			ch.Recv()
		},
		pass,
	}
	strat := func(i int) sched.Strategy { return explore.RandomWalk(uint64(i)) }
	got := sequence(t, bodies, strat, sched.Options{})
	for i, body := range bodies {
		r := sched.Run(body, strat(i), sched.Options{})
		if want := summary(r); fmt.Sprint(got[i]) != fmt.Sprint(want) {
			t.Errorf("execution %d: the sequence ran %+v, Run %+v", i, got[i], want)
		}
	}
	for i, kind := range map[int]string{3: "deadlock", 5: "panic"} {
		if !strings.HasPrefix(got[i].failure, kind) {
			t.Errorf("execution %d failed with %q, want a %s", i, got[i].failure, kind)
		}
	}
}

// A goroutine that blocks outside weft, the root itself (which keeps the
// sequence's worker) or another goroutine while the root waits, makes its
// execution Blocked after the block timeout; the sequence goes on with the
// next execution, and the caller returns.
func TestSequenceBlocked(t *testing.T) {
	never := make(chan int)
	defer close(never)
	var mu sync.Mutex // held all along: a lock weft does not know
	mu.Lock()
	defer mu.Unlock()
	pass := func() {
		var v sim.Var[int]
		sim.Go(func() { v.Store(1) })
		v.Store(2)
	}
	bodies := []func(){
		pass,
		func() { <-never },
		pass,
		func() {
			var wg sim.WaitGroup
			wg.Go(func() { mu.Lock() })
			wg.Wait()
		},
		pass,
	}
	got := sequence(t, bodies, func(i int) sched.Strategy { return explore.RandomWalk(uint64(i)) },
		sched.Options{BlockTimeout: 50 * time.Millisecond})
	for i, e := range got {
		if strings.HasPrefix(e.failure, "blocked") != (i%2 == 1) {
			t.Errorf("execution %d failed with %q", i, e.failure)
		}
	}
}

// G.Goroutines counts the same in an execution of a sequence as in one of
// Run: the worker that runs the sequence, and the caller, are not counted.
// Goroutines of the process that come and go between executions (an idle
// worker on its way out) can make two counts differ once: they are
// compared a few times, and must agree at least once.
func TestSequenceGoroutines(t *testing.T) {
	var counts []int
	body := func() {
		sim.Go(func() {})
		counts = append(counts, sched.Current().Goroutines())
	}
	for range 5 {
		counts = counts[:0]
		sched.Run(body, explore.RandomWalk(0), sched.Options{})
		sequence(t, []func(){body, body}, func(int) sched.Strategy { return explore.RandomWalk(0) }, sched.Options{})
		if counts[1] == counts[0] && counts[2] == counts[0] {
			return
		}
	}
	t.Fatalf("goroutines seen by Run's execution, then the sequence's: %v", counts)
}

// A goroutine started with a plain go statement inherits the label set,
// and so the identity, of the worker it was started from: after an
// execution it escaped, the sequence's next root runs elsewhere, and the
// escaped goroutine does not take its identity.
func TestSequenceEscapedGoroutineKeepsNoIdentity(t *testing.T) {
	release, seen := make(chan struct{}), make(chan any)
	var root, escaped any
	bodies := []func(){
		func() {
			go func() { // escapes, and outlives the execution
				<-release
				seen <- gls.Get()
			}()
		},
		func() {
			root = sched.Current()
			close(release) // a short wait outside weft, well under the block timeout
			escaped = <-seen
		},
	}
	got := sequence(t, bodies, func(i int) sched.Strategy { return explore.RandomWalk(uint64(i)) }, sched.Options{})
	if !strings.HasPrefix(got[0].failure, "escape") {
		t.Errorf("the first execution failed with %q, want an escape", got[0].failure)
	}
	if root == nil || escaped == root {
		t.Fatal("the escaped goroutine took the identity of the next execution's root")
	}
}
