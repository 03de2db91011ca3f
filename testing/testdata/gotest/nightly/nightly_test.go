// Package nightly has a test with two distinct bugs, each in a good share
// of the executions, and one without: a nightly run finds and saves both
// bugs once each.
package nightly

import (
	"testing"

	"github.com/weftdev/weft/sim"
	weft "github.com/weftdev/weft/testing"
)

func TestTwoBugs(t *testing.T) {
	weft.Check(t, func(t *weft.T) {
		var n sim.Var[int]
		var wg sim.WaitGroup
		for range 2 {
			wg.Go(func() { n.Store(n.Load() + 1) })
		}
		wg.Wait()
		if n.Load() != 2 {
			t.Errorf("lost update: %d", n.Load())
		}
		var m sim.Mutex
		done := sim.NewChan[bool](0)
		sim.Go(func() {
			m.Lock()
			if sim.Intn(4) == 0 {
				return // forgets to unlock and to signal
			}
			m.Unlock()
			done.Send(true)
		})
		m.Lock()
		m.Unlock()
		done.Recv()
	})
}

func TestNoBug(t *testing.T) {
	weft.Check(t, func(t *weft.T) {
		var m sim.Mutex
		var wg sim.WaitGroup
		for range 3 {
			wg.Go(func() {
				m.Lock()
				m.Unlock()
			})
		}
		wg.Wait()
	})
}
