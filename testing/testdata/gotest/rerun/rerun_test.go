// Package rerun has a test that cannot run twice in one process: its first
// run closes a package-level pool, as ants' TestAntsPool closes ants'
// default pool, and every later run finds it closed. go test -count=2
// fails it; go test passes it.
package rerun

import (
	"os"
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

// janitor is a package-level goroutine started at init, as a library's
// purge loop is: it runs what it is handed, outside every execution.
var janitor = func() chan func() {
	work := make(chan func())
	go func() {
		for f := range work {
			f()
			work <- nil
		}
	}()
	return work
}()

var outsideRuns int

// TestFreshRunTouchedFromOutside finds the pool closed in every run after
// its first, and its first run in the fresh process that confirms that
// failure (as the long first run of ants' TestAntsPool, whose purge loop
// wakes) has a mutex of the execution locked by the janitor: neither
// failure replays, so nothing is saved.
func TestFreshRunTouchedFromOutside(t *testing.T) {
	weft.Check(t, func(t *weft.T) {
		outsideRuns++
		if outsideRuns > 1 {
			t.Fatal("the pool is closed")
		}
		if os.Getenv("WEFT_CONFIRMING") == "" {
			return
		}
		var mu sim.Mutex
		mu.Lock()
		mu.Unlock()
		janitor <- func() { mu.Lock(); mu.Unlock() }
		<-janitor
	})
}

var poolBroken bool

// TestTouchedFromOutside has its execution's mutex locked by the janitor,
// and leaves the pool it shares with TestAfterOutside broken, as the
// execution of ants' TestAntsPool that the purge loop touched leaves the
// default pool counting workers that will never end.
func TestTouchedFromOutside(t *testing.T) {
	weft.Check(t, func(t *weft.T) {
		poolBroken = true
		var mu sim.Mutex
		mu.Lock()
		mu.Unlock()
		janitor <- func() { mu.Lock(); mu.Unlock() }
		<-janitor
	})
}

// TestAfterOutside fails on the broken pool in its first execution after
// TestTouchedFromOutside, and passes alone, as a fresh process runs it.
func TestAfterOutside(t *testing.T) {
	weft.Check(t, func(t *weft.T) {
		if poolBroken {
			t.Fatal("the pool is broken")
		}
	})
}

// registry is a package-level registry and setUp the package-level Once
// that guards the tests' registration in it, as in groupcache's tests:
// under go test the first test registers, and the second finds it done. weft starts
// the Once afresh in each execution, not the registry, so the second
// test's first execution registers again and panics; a fresh process
// following its schedule passes.
var (
	registry = map[string]bool{}
	setUp    sim.Once
)

func register() {
	if registry["group"] {
		panic("duplicate registration of group")
	}
	registry["group"] = true
}

func TestRegistersFirst(t *testing.T) {
	weft.Check(t, func(t *weft.T) { setUp.Do(register) })
}

func TestRegistersAfter(t *testing.T) {
	weft.Check(t, func(t *weft.T) { setUp.Do(register) })
}

var (
	handled    bool // a registry of one, as net/http's default mux
	handleRuns int
)

// TestRegistersUnreplayed registers in its first run, and fails at a second
// registration in every later one, as groupcache's TestHTTPPool does at a
// second NewHTTPPool; as that test talks to child processes, no two runs
// have the same events (here: one lock more or less), so no failure
// replays identically, and none is saved. A fresh process following the
// schedule passes.
func TestRegistersUnreplayed(t *testing.T) {
	weft.Check(t, func(t *weft.T) {
		handleRuns++
		var mu sim.Mutex
		for range handleRuns % 2 {
			mu.Lock()
			mu.Unlock()
		}
		if handled {
			t.Fatal("registered twice")
		}
		handled = true
	})
}

var subClosed bool

// TestSubtestClosesPool is TestClosesPool in a subtest: though the
// executions after the first fail on the closed pool, which a fresh
// process refutes, the test passes and shows its subtest, from its first
// execution, as go test does.
func TestSubtestClosesPool(t *testing.T) {
	weft.Check(t, func(t *weft.T) {
		t.Run("sub", func(t *weft.T) {
			if subClosed {
				t.Fatal("the pool is closed")
			}
			var wg sim.WaitGroup
			wg.Go(func() {})
			wg.Wait()
			subClosed = true
		})
	})
}
