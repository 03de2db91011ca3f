package sim_test

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weftdev/weft/sim"
)

// cache is go-cache's Cache: its finalizer stops a janitor.
type cache struct{ items map[string]int }

// collect runs the garbage collector until ran is set, or rounds times,
// 10 ms of real time apart: a finalizer runs in the runtime's goroutine
// after the collection that found its object unreachable.
func collect(ran *atomic.Bool, rounds int) {
	for i := 0; i < rounds && !ran.Load(); i++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
}

// TestFinalizerUnderControl sets a finalizer and a cleanup in an
// execution on objects it then drops: neither may run, as their
// goroutine is the runtime's, outside every schedule (go-cache's
// TestCacheTimes: the finalizer sent on the janitor's channel of the
// execution from outside it). In plain mode both run as Go runs them.
func TestFinalizerUnderControl(t *testing.T) {
	var finalized, cleaned atomic.Bool
	r := runOnce(func() {
		c := &cache{items: map[string]int{"a": 1}}
		sim.SetFinalizer(c, func(*cache) { finalized.Store(true) })
		d := &cache{}
		sim.AddCleanup(d, func(int) { cleaned.Store(true) }, 0)
		c, d = nil, nil
		collect(&finalized, 20)
		sim.Sleep(1)
	})
	if r.Failure != nil {
		t.Fatal(r.Failure.Summary())
	}
	collect(&finalized, 20)
	if finalized.Load() || cleaned.Load() {
		t.Errorf("under control: the finalizer ran %v, the cleanup %v; want neither", finalized.Load(), cleaned.Load())
	}

	c := &cache{}
	sim.SetFinalizer(c, func(*cache) { finalized.Store(true) })
	d := &cache{}
	sim.AddCleanup(d, func(int) { cleaned.Store(true) }, 0)
	c, d = nil, nil
	collect(&finalized, 500)
	collect(&cleaned, 500)
	if !finalized.Load() || !cleaned.Load() {
		t.Errorf("in plain mode: the finalizer ran %v, the cleanup %v; want both", finalized.Load(), cleaned.Load())
	}
}
