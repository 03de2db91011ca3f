package sched_test

import (
	"testing"

	"github.com/weftdev/weft/explore"
	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
)

func TestSmokeLostUpdate(t *testing.T) {
	found := 0
	for seed := uint64(0); seed < 100; seed++ {
		var failed bool
		r := sched.Run(func() {
			var x sim.Var[int]
			var wg sim.WaitGroup
			for range 2 {
				wg.Go(func() { x.Store(x.Load() + 1) })
			}
			wg.Wait()
			if x.Load() != 2 {
				failed = true
			}
		}, explore.RandomWalk(seed), sched.Options{})
		if r.Failure != nil {
			t.Fatalf("seed %d: %v", seed, r.Failure.Summary())
		}
		if failed {
			found++
		}
	}
	t.Logf("found in %d/100", found)
	if found == 0 {
		t.Fatal("never found")
	}
}

func TestSmokeDeadlock(t *testing.T) {
	r := sched.Run(func() {
		ch := sim.NewChan[int](0)
		ch.Recv()
	}, explore.RandomWalk(1), sched.Options{})
	if r.Failure == nil || r.Failure.Kind != sched.Deadlock {
		t.Fatalf("got %+v", r.Failure)
	}
	t.Log(r.Failure.Summary())
}
