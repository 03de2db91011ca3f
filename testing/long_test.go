package weft_test

import (
	"strings"
	"sync/atomic"
	"testing"

	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
	weft "github.com/weftdev/weft/testing"
)

// stores runs two goroutines that store n times each.
func stores(n int) {
	var v sim.Var[int]
	var wg sim.WaitGroup
	for range 2 {
		wg.Go(func() {
			for i := range n {
				v.Store(i)
			}
		})
	}
	wg.Wait()
}

// A stress test longer than the runaway limit, which ends: the runaway it
// first looks like is let run on, ends, and the test passes; exploration
// stops there.
func TestLongTestIsNoRunaway(t *testing.T) {
	t.Parallel()
	var runs atomic.Int64
	f, err := weft.Find(func(*weft.T) {
		runs.Add(1)
		stores(10_000) // 20,000 events; the limit is 8 × 1,000
	}, weft.MaxSteps(1000), weft.Iterations(20))
	if err != nil {
		t.Fatal(err)
	}
	if f != nil {
		t.Fatalf("found %s", f.Failure.Summary())
	}
	// The runaway, its execution let run on, and what the chunk of
	// executions under way held: not the 20 executions asked for.
	if n := runs.Load(); n < 2 || n >= 20 {
		t.Fatalf("%d runs, want the runaway, its execution let run on, and no more than a chunk", n)
	}
}

// A livelock is a runaway still, let run on or not.
func TestLivelockIsRunaway(t *testing.T) {
	t.Parallel()
	var runs atomic.Int64
	f, err := weft.Find(func(*weft.T) {
		runs.Add(1)
		var v sim.Var[int]
		for v.Load() >= 0 {
			v.Store(v.Load() + 1)
		}
	}, weft.MaxSteps(1000), weft.Iterations(20))
	if err != nil {
		t.Fatal(err)
	}
	if f == nil || f.Failure.Kind != sched.Runaway || f.Long != nil {
		t.Fatalf("found %v, want a runaway", f)
	}
	if !strings.Contains(f.Failure.Message, "without ending") {
		t.Fatalf("runaway says %q", f.Failure.Message)
	}
	// Found, let run on, then traced once: no other execution.
	if n := runs.Load(); n != 3 {
		t.Fatalf("%d runs, want 3", n)
	}
}
