// Package lostwakeup is the lost wakeup: a gate wakes its waiters with
// Cond.Signal, which wakes one; with two goroutines waiting, the other
// sleeps forever. Broadcast was needed.
package lostwakeup

import (
	"github.com/weftdev/weft/sim"
	weft "github.com/weftdev/weft/testing"
)

// Gate blocks goroutines until it is opened.
type Gate struct {
	mu        sim.Mutex
	cond      *sim.Cond
	open      bool
	broadcast bool
}

// NewSignalGate returns the gate that opens with Signal: the bug.
func NewSignalGate() *Gate {
	g := &Gate{}
	g.cond = sim.NewCond(&g.mu)
	return g
}

// NewGate returns the gate that opens with Broadcast: the fix.
func NewGate() *Gate {
	g := NewSignalGate()
	g.broadcast = true
	return g
}

// Wait blocks until the gate is open.
func (g *Gate) Wait() {
	g.mu.Lock()
	defer g.mu.Unlock()
	for !g.open {
		g.cond.Wait()
	}
}

// Open opens the gate and wakes the waiters.
func (g *Gate) Open() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.open = true
	if g.broadcast {
		g.cond.Broadcast()
	} else {
		g.cond.Signal()
	}
}

// Buggy is the test body that finds the bug.
func Buggy(t *weft.T) { twoWaiters(NewSignalGate()) }

// Fixed is the same test of the fixed code.
func Fixed(t *weft.T) { twoWaiters(NewGate()) }

func twoWaiters(g *Gate) {
	var wg sim.WaitGroup
	wg.Go(g.Wait)
	wg.Go(g.Wait)
	sim.Go(g.Open)
	wg.Wait()
}
