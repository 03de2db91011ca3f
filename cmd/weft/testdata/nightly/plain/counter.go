// Package plain is a lost update written with plain sync.Mutex: Inc reads
// and writes in two critical sections.
package plain

import "sync"

// Counter is shared by goroutines.
type Counter struct {
	mu    sync.Mutex
	n     int
	fixed bool
}

// Inc adds one.
func (c *Counter) Inc() {
	if c.fixed {
		c.mu.Lock()
		c.n++
		c.mu.Unlock()
		return
	}
	c.mu.Lock()
	v := c.n
	c.mu.Unlock()
	c.mu.Lock()
	c.n = v + 1
	c.mu.Unlock()
}

// Value returns the count.
func (c *Counter) Value() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}
