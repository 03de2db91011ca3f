// Package counter is a counter with a batched flush, in plain Go: see
// examples/batchcounter for its story. weft test rewrites its sync.Mutex
// and atomics to weft's, and lin.Check finds the batch counted twice.
package counter

import (
	"sync"
	"sync/atomic"
)

// Counter counts increments, flushing them two at a time.
type Counter struct {
	mu      sync.Mutex
	pending int
	total   atomic.Int64
	racy    bool
}

// NewRacy returns the counter whose flush lets Get see a batch twice.
func NewRacy() *Counter { return &Counter{racy: true} }

// New returns the fixed counter.
func New() *Counter { return &Counter{} }

// Inc adds one.
func (c *Counter) Inc() {
	c.mu.Lock()
	c.pending++
	full := c.pending >= 2
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

// Hits counts with an atomic load and store: two at once lose one.
type Hits struct{ n atomic.Int64 }

// Hit adds one, racily.
func (h *Hits) Hit() { h.n.Store(h.n.Load() + 1) }

// Get returns the count.
func (h *Hits) Get() int { return int(h.n.Load()) }
