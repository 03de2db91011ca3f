// Package rerun has a test that cannot run twice in one process: its first
// run closes a package-level pool, as ants' TestAntsPool closes ants'
// default pool, and every later run finds it closed. go test -count=2
// fails it; go test passes it.
package rerun

import (
	"testing"

	"github.com/weftdev/weft/sim"
	weft "github.com/weftdev/weft/testing"
)

var closed bool

func TestClosesPool(t *testing.T) {
	weft.Check(t, func(t *weft.T) {
		if closed {
			t.Fatal("the pool is closed")
		}
		var wg sim.WaitGroup
		wg.Go(func() {})
		wg.Wait()
		closed = true
	})
}

var leakRuns int

// TestFirstRunLeaks leaks a goroutine in its first run in a process, as
// ants' TestAntsPool does, and finds the pool closed in every later run:
// the leak does not replay in the process, the closed pool does but not in
// a fresh process, which fails with the leak instead.
func TestFirstRunLeaks(t *testing.T) {
	weft.Check(t, func(t *weft.T) {
		leakRuns++
		if leakRuns > 1 {
			t.Fatal("the pool is closed")
		}
		never := sim.NewChan[int](0)
		sim.Go(func() { never.Recv() })
	})
}
