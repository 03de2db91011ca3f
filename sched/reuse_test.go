package sched_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/weftdev/weft/explore"
	"github.com/weftdev/weft/internal/race"
	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
)

// Objects that outlive the executions, as a package-level mutex of a test
// does: each execution must start them afresh, whatever controller it
// runs on.
var (
	keptMu    sim.Mutex
	keptTimer *sim.Timer
	keptFired int
)

// reuseBody locks keptMu and never unlocks it (a state carried over from
// an earlier execution would deadlock), resets the timer an earlier
// execution stopped (set anew in this one, it fires once here, and never
// in the earlier one's state: hashicorp/yamux keeps its timers in a
// sync.Pool), and runs more
// goroutines than the controller's first slab holds, on a channel, a
// variable and the clock, so that a random walk makes many choices.
func reuseBody() {
	keptMu.Lock()
	if keptTimer != nil {
		keptTimer.Reset(time.Microsecond)
	}
	keptTimer = sim.AfterFunc(time.Hour, func() { keptFired++ })
	keptTimer.Stop()
	var wg sim.WaitGroup
	var v sim.Var[int]
	ch := sim.NewChan[int](2)
	for i := range 6 {
		wg.Go(func() {
			v.Store(v.Load() + i)
			ch.Send(i)
			sim.Sleep(time.Duration(i) * time.Microsecond)
			ch.Recv()
		})
	}
	wg.Wait()
	if v.Load() > 14 {
		sim.Intn(3)
	}
}

type execution struct {
	hash     uint64
	steps    int
	schedule sched.Schedule
	failure  string
}

func summary(r *sched.Result) execution {
	return execution{r.Hash, r.Steps, slices.Clone(r.Schedule()), r.Failure.Summary()}
}

// A controller reused through Result.Release runs the same executions as
// fresh ones: same hashes, steps and schedules, for both strategies, with
// objects and a timer that outlive the executions.
func TestReusedControllerSameExecution(t *testing.T) {
	strategies := map[string]func(seed uint64) sched.Strategy{
		"random": func(seed uint64) sched.Strategy { return explore.RandomWalk(seed) },
		"pct":    func(seed uint64) sched.Strategy { return explore.PCT(seed, 3, 40) },
	}
	// One execution first, so that every execution compared finds the
	// timer of the one before.
	sched.Run(reuseBody, explore.RandomWalk(0), sched.Options{})
	for name, strat := range strategies {
		const n = 40
		keptFired = 0
		var fresh []execution
		var keep []*sched.Result // none released: each execution has its own controller
		for seed := range uint64(n) {
			r := sched.Run(reuseBody, strat(seed), sched.Options{Verify: true})
			keep = append(keep, r)
			fresh = append(fresh, summary(r))
		}
		reused := 0
		var last *sched.Result
		for seed := range uint64(n) {
			r := sched.Run(reuseBody, strat(seed), sched.Options{Verify: true})
			if r == last {
				reused++
			}
			if got := summary(r); fmt.Sprint(got) != fmt.Sprint(fresh[seed]) {
				t.Fatalf("%s, seed %d: reused controller ran %+v, a fresh one %+v", name, seed, got, fresh[seed])
			}
			if r.Failure != nil {
				t.Fatalf("%s, seed %d: %s", name, seed, r.Failure.Summary())
			}
			r.Release()
			last = r
		}
		if !race.Enabled && reused == 0 {
			t.Errorf("%s: no execution reused the controller of the one before", name)
		}
		if keptFired != 2*n {
			t.Fatalf("%s: a timer stopped in an earlier execution and reset in each later one fired %d times in %d", name, keptFired, 2*n)
		}
		for i, r := range keep {
			if got := summary(r); fmt.Sprint(got) != fmt.Sprint(fresh[i]) {
				t.Fatalf("%s, seed %d: a Result never released changed from %+v to %+v", name, i, fresh[i], got)
			}
		}
	}
}

// A Result the caller keeps is never recycled: executions that release
// theirs never run on its controller, and it reads the same after them. A
// copy of a Result, and a second Release, release nothing.
func TestKeptResultNotRecycled(t *testing.T) {
	kept := sched.Run(reuseBody, explore.RandomWalk(7), sched.Options{})
	want := summary(kept)
	if len(want.schedule) < 3 {
		t.Fatalf("the kept execution made %d choices, want more than the controller holds (2)", len(want.schedule))
	}
	copied := *kept
	copied.Release()
	for seed := range uint64(50) {
		r := sched.Run(reuseBody, explore.RandomWalk(seed), sched.Options{})
		if r == kept {
			t.Fatalf("execution %d ran on the controller of a Result that was kept", seed)
		}
		r.Release()
		r.Release() // a second time: nothing
		if got := summary(kept); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("after execution %d, the kept Result changed from %+v to %+v", seed, want, got)
		}
	}
	// Released twice, a controller would serve the next two executions.
	a := sched.Run(reuseBody, explore.RandomWalk(1), sched.Options{})
	b := sched.Run(reuseBody, explore.RandomWalk(2), sched.Options{})
	if a == b {
		t.Fatal("two executions whose Results are both held returned the same Result")
	}
}
