package sim_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/weftdev/weft/explore"
	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
)

// spinLock is ants' spin lock (github.com/panjf2000/ants/v2/pkg/sync): a
// CompareAndSwap with an exponential backoff of yields.
type spinLock struct{ v sim.Uint32 }

func (l *spinLock) Lock() {
	backoff := 1
	for !l.v.CompareAndSwap(0, 1) {
		for range backoff {
			sim.Yield()
		}
		if backoff < 16 {
			backoff <<= 1
		}
	}
}

func (l *spinLock) Unlock() { l.v.Store(0) }

func spinBody(n int) func() {
	return func() {
		var wg sim.WaitGroup
		var l spinLock
		count := 0
		for range n {
			wg.Go(func() {
				sim.Sleep(10 * time.Millisecond)
				l.Lock()
				count++
				l.Unlock()
			})
		}
		wg.Wait()
		if count != n {
			panic("lost update")
		}
	}
}

// TestControlledSpinLockScales checks that a spin lock's critical
// sections cost the same with ten goroutines spinning or a thousand: the
// spinners wait for the lock's word to change (sched/spin.go), rather than
// each looking again at every event.
func TestControlledSpinLockScales(t *testing.T) {
	few, many := eventsPer(t, spinBody(100), 100), eventsPer(t, spinBody(1000), 1000)
	t.Logf("events per goroutine: %.1f with 100, %.1f with 1,000", few, many)
	if many > 2*few {
		t.Errorf("%.1f events per goroutine with 1,000 goroutines, %.1f with 100: spinners cost more the more they are", many, few)
	}
}

func TestControlledSpinLock(t *testing.T) {
	exploreAll(t, func(c *checker) {
		spinBody(4)()
	})
}

// TestControlledSpinOnPlainMemory checks that a spin loop that also waits
// for something the controller does not see (a plain variable) ends: when
// nothing else can run, the spinners look again.
func TestControlledSpinOnPlainMemory(t *testing.T) {
	exploreAll(t, func(c *checker) {
		var word sim.Uint32
		word.Store(1)        // never released
		var stop atomic.Bool // sync/atomic's: the controller does not see it
		var wg sim.WaitGroup
		wg.Go(func() {
			for !word.CompareAndSwap(0, 1) && !stop.Load() {
				sim.Yield()
			}
		})
		stop.Store(true)
		wg.Wait()
	})
}

// TestControlledSpinLivelock checks that goroutines spinning on a lock
// nobody releases are reported, as pollers, and do not run forever.
func TestControlledSpinLivelock(t *testing.T) {
	r := runOnce(func() {
		var l spinLock
		l.Lock()
		var wg sim.WaitGroup
		for range 3 {
			wg.Go(l.Lock)
		}
		wg.Wait()
	})
	wantFailure(t, r, sched.Deadlock, "")
	polling := 0
	for _, w := range r.Failure.Waiting {
		if w.Polling {
			polling++
		}
	}
	if polling != 3 {
		t.Errorf("%d goroutines polling, want the 3 spinners: %s", polling, r.Failure.Summary())
	}
}

// eventsPer runs body once under a random walk and returns its events per
// unit (a goroutine, a task): the measure of the scaling tests, which
// count events, never time.
func eventsPer(t *testing.T, body func(), units int) float64 {
	t.Helper()
	r := sched.Run(body, explore.RandomWalk(1), sched.Options{})
	if r.Failure != nil {
		t.Fatalf("the run of %d units failed: %s", units, r.Failure.Summary())
	}
	return float64(r.Steps) / float64(units)
}
