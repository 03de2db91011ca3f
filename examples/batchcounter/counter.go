// Package batchcounter is a counter with a batched flush: increments
// gather in a pending count under a lock, and every Batch of them are
// flushed into an atomic total that readers add the pending count to. The
// flush takes the pending count in one critical section and subtracts it in
// another, with the addition to the total between them: a Get that runs
// there counts the batch twice.
package batchcounter

import "github.com/weftdev/weft/sim"

// Batch is how many increments a flush moves to the total.
const Batch = 2

// Counter counts increments.
type Counter struct {
	mu      sim.Mutex
	pending int // under mu
	total   sim.Int64
	racy    bool
}

// NewRacy returns the counter whose flush lets Get see a batch twice.
func NewRacy() *Counter { return &Counter{racy: true} }

// New returns the fixed counter: the flush moves the batch in one critical
// section.
func New() *Counter { return &Counter{} }

// Inc adds one.
func (c *Counter) Inc() {
	c.mu.Lock()
	c.pending++
	full := c.pending >= Batch
	c.mu.Unlock()
	if full {
		c.flush()
	}
}

func (c *Counter) flush() {
	c.mu.Lock()
	if !c.racy {
		c.total.Add(int64(c.pending))
		c.pending = 0
		c.mu.Unlock()
		return
	}
	n := c.pending
	c.mu.Unlock()
	c.total.Add(int64(n))
	c.mu.Lock()
	c.pending -= n
	c.mu.Unlock()
}

// Get returns the count.
func (c *Counter) Get() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return int(c.total.Load()) + c.pending
}
