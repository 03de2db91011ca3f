// Package wakeup is the lost wakeup: Signal where Broadcast was needed.
package wakeup

import "sync"

// Gate lets goroutines wait until it opens.
type Gate struct {
	mu        sync.Mutex
	cond      *sync.Cond
	open      bool
	broadcast bool
}

// New returns a gate; broadcast selects the fix.
func New(broadcast bool) *Gate {
	g := &Gate{broadcast: broadcast}
	g.cond = sync.NewCond(&g.mu)
	return g
}

// Wait blocks until the gate is open.
func (g *Gate) Wait() {
	g.mu.Lock()
	for !g.open {
		g.cond.Wait()
	}
	g.mu.Unlock()
}

// Open opens the gate.
func (g *Gate) Open() {
	g.mu.Lock()
	g.open = true
	if g.broadcast {
		g.cond.Broadcast()
	} else {
		g.cond.Signal()
	}
	g.mu.Unlock()
}
