package explore_test

import (
	"fmt"

	"github.com/weftdev/weft/explore"
	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
)

// lostUpdate is a body with a bug: two goroutines increment a counter with
// a load and a store, not atomically, so one increment can be lost.
func lostUpdate() {
	counter := sim.NewVar(0)
	var wg sim.WaitGroup
	for range 2 {
		wg.Add(1)
		sim.Go(func() {
			defer wg.Done()
			v := counter.Load()
			counter.Store(v + 1)
		})
	}
	wg.Wait()
	if got := counter.Load(); got != 2 {
		panic(fmt.Sprintf("counter = %d, want 2", got))
	}
}

// Run explores a body's interleavings until one fails; Minimize shrinks
// the failing schedule to the fewest preemptions that fail the same way,
// and the minimized schedule replays the failure.
func ExampleRun() {
	sum, err := explore.Run(lostUpdate, explore.Config{Seed: 1, Iterations: 1000})
	if err != nil {
		panic(err)
	}
	if sum.Finding == nil {
		fmt.Println("no failure")
		return
	}
	fmt.Println("found:", sum.Finding.Result.Failure.Message)
	m := explore.Minimize(lostUpdate, sum.Finding.Result, explore.MinimizeConfig{})
	fmt.Println("preemptions after minimization:", m.After)
	again := explore.Execute(lostUpdate, explore.Follow(m.Result.Schedule()), sched.Options{})
	fmt.Println("replayed:", again.Failure.Message)
	// Output:
	// found: counter = 1, want 2
	// preemptions after minimization: 1
	// replayed: counter = 1, want 2
}

// firstFailure runs lostUpdate under the strategy of each seed from 0
// until an execution fails, and says whether that seed fails the same way
// again (a strategy with a seed always makes the same choices).
func firstFailure(strategy func(seed uint64) sched.Strategy) string {
	for seed := range uint64(100) {
		if r := explore.Execute(lostUpdate, strategy(seed), sched.Options{}); r.Failure != nil {
			again := explore.Execute(lostUpdate, strategy(seed), sched.Options{})
			return fmt.Sprintf("a failure within 100 seeds (%s); the same execution again from its seed: %v", r.Failure.Message, again.Hash == r.Hash)
		}
	}
	return "no failure in 100 seeds"
}

// PCT, for bugs of depth 2 (one ordering constraint: a switch between the
// load and the store) in executions of about 10 decisions, drives one
// execution per seed.
func ExamplePCT() {
	fmt.Println(firstFailure(func(seed uint64) sched.Strategy { return explore.PCT(seed, 2, 10) }))
	// Output:
	// a failure within 100 seeds (counter = 1, want 2); the same execution again from its seed: true
}

// A random walk runs a uniformly chosen enabled goroutine at every
// decision.
func ExampleRandomWalk() {
	fmt.Println(firstFailure(func(seed uint64) sched.Strategy { return explore.RandomWalk(seed) }))
	// Output:
	// a failure within 100 seeds (counter = 1, want 2); the same execution again from its seed: true
}

// Deviate follows the default policy (the running goroutine goes on while
// it can) but at the events it names: here, at goroutine #1's second event
// (its Store, after its Load), the other worker runs instead, which loses
// an increment. The result's schedule names the same choice by lineage.
func ExampleDeviate() {
	r := explore.Execute(lostUpdate, explore.Deviate(explore.Deviations{{G: 1, N: 2, Alt: 0}}), sched.Options{})
	fmt.Println(r.Failure.Message)
	for _, c := range r.Schedule() {
		fmt.Printf("at goroutine %s's event %d, %s runs (preemption: %v)\n", c.G, c.N, c.Next, c.Preempt)
	}
	// Output:
	// counter = 1, want 2
	// at goroutine 0.1's event 2, 0.2 runs (preemption: true)
}

// Follow follows a saved schedule: the same failure, every time.
func ExampleFollow() {
	s := sched.Schedule{{Kind: sched.RunChoice, G: "0.1", N: 2, Next: "0.2", Preempt: true}}
	for range 2 {
		r := explore.Follow(s)
		res := explore.Execute(lostUpdate, r, sched.Options{})
		fmt.Println(res.Failure.Message, "drift:", len(r.Drift()))
	}
	// Output:
	// counter = 1, want 2 drift: 0
	// counter = 1, want 2 drift: 0
}
