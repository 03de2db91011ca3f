// Package lostupdate is the lost update: two goroutines increment a shared
// counter with a load and a store that are not atomic together, so one
// increment can overwrite the other.
package lostupdate

import (
	"github.com/weftdev/weft/sim"
	weft "github.com/weftdev/weft/testing"
)

// RacyCounter increments with a separate load and store: the bug.
type RacyCounter struct{ n sim.Var[int] }

// Inc adds one.
func (c *RacyCounter) Inc() { c.n.Store(c.n.Load() + 1) }

// Value returns the count.
func (c *RacyCounter) Value() int { return c.n.Load() }

// Counter holds a mutex across the load and the store: the fix.
type Counter struct {
	mu sim.Mutex
	n  sim.Var[int]
}

// Inc adds one.
func (c *Counter) Inc() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n.Store(c.n.Load() + 1)
}

// Value returns the count.
func (c *Counter) Value() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n.Load()
}

type counter interface {
	Inc()
	Value() int
}

// Buggy is the test body that finds the bug.
func Buggy(t *weft.T) { incrementTwice(t, &RacyCounter{}) }

// Fixed is the same test of the fixed code.
func Fixed(t *weft.T) { incrementTwice(t, &Counter{}) }

func incrementTwice(t *weft.T, c counter) {
	var wg sim.WaitGroup
	for range 2 {
		wg.Go(c.Inc)
	}
	wg.Wait()
	if got := c.Value(); got != 2 {
		t.Errorf("counter = %d after 2 increments, want 2", got)
	}
}
