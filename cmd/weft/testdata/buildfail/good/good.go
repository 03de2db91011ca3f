// Package good counts under a mutex: weft rewrites it, and the tests of
// package bad, which import it, are checked against its rewrite.
package good

import "sync"

// Counter counts.
type Counter struct {
	mu sync.Mutex
	n  int
}

// Add adds one.
func (c *Counter) Add() {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
}

// N returns the count.
func (c *Counter) N() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}
