// Package examples explores the buggy twins of weft's examples, and a test
// with two distinct bugs: what a nightly run finds, saves and merges.
package examples

import (
	"testing"

	"github.com/weftdev/weft/examples/abba"
	"github.com/weftdev/weft/examples/lostupdate"
	"github.com/weftdev/weft/examples/lostwakeup"
	"github.com/weftdev/weft/sim"
	weft "github.com/weftdev/weft/testing"
)

// TestTwoBugs fails two ways: a lost update, and a goroutine that forgets to
// unlock and signal.
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

func TestLostUpdate(t *testing.T) { weft.Check(t, lostupdate.Buggy) }

func TestABBA(t *testing.T) { weft.Check(t, abba.Buggy) }

func TestLostWakeup(t *testing.T) { weft.Check(t, lostwakeup.Buggy) }

func TestFixed(t *testing.T) { weft.Check(t, lostupdate.Fixed) }
