package explore_test

import (
	"testing"

	"github.com/weftdev/weft/explore"
	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
)

// TestDeviateNoneIsTheDefaultPolicy checks that an empty list of
// deviations, and deviations at events that never come, run the default
// execution.
func TestDeviateNoneIsTheDefaultPolicy(t *testing.T) {
	var failed bool
	def := run(transfer(&failed), explore.Follow(nil))
	for _, ds := range []explore.Deviations{nil, {{G: 9, N: 1}}, {{G: 1, N: 999, Alt: 3}}} {
		r := run(transfer(&failed), explore.Deviate(ds))
		if r.Hash != def.Hash || len(r.Schedule()) != 0 {
			t.Errorf("Deviate(%#v): hash %#x and %d choices, want the default execution's %#x and none", ds, r.Hash, len(r.Schedule()), def.Hash)
		}
	}
}

// TestDeviateAtItsEvent checks that a deviation is made at the event it
// names, by goroutine in creation order and event counter, and that the
// alternatives wrap around.
func TestDeviateAtItsEvent(t *testing.T) {
	body := func() {
		var wg sim.WaitGroup
		var v sim.Var[int]
		for range 3 {
			wg.Go(func() { v.Store(v.Load() + 1) })
		}
		wg.Wait()
	}
	// Goroutine #1 (0.1) at its event 2 (the Store): the alternatives are
	// 0.2 and 0.3 (and the root, blocked in Wait, is none).
	for alt, want := range []string{"0.2", "0.3", "0.2"} {
		r := run(body, explore.Deviate(explore.Deviations{{G: 1, N: 2, Alt: alt}}))
		if len(r.Schedule()) != 1 {
			t.Fatalf("alternative %d: schedule %+v, want one choice", alt, r.Schedule())
		}
		c := r.Schedule()[0]
		if c.G != "0.1" || c.N != 2 || c.Next != want || !c.Preempt {
			t.Errorf("alternative %d: choice %+v, want a preemption of 0.1 at its event 2 by %s", alt, c, want)
		}
	}
}

// TestDeviatePicks checks deviations at data choices: alternative a picks
// value 1+a modulo the others.
func TestDeviatePicks(t *testing.T) {
	var got int
	body := func() { got = sim.Intn(4) }
	for alt, want := range []int{1, 2, 3, 1} {
		run(body, explore.Deviate(explore.Deviations{{G: 0, N: 1, Alt: alt}}))
		if got != want {
			t.Errorf("alternative %d: Intn(4) = %d, want %d", alt, got, want)
		}
	}
	var _ sched.Strategy = explore.Deviate(nil)
}
