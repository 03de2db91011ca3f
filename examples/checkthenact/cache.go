// Package checkthenact is the check-then-act race on a map: a cache checks
// for a key under its lock, releases the lock to compute the value, and
// stores it under the lock again, so two goroutines can both miss and both
// compute.
package checkthenact

import (
	"github.com/weftdev/weft/sim"
	weft "github.com/weftdev/weft/testing"
)

// Cache memoizes an expensive function per key.
type Cache struct {
	mu       sim.Mutex
	values   map[string]int
	compute  func(string) int
	computed sim.Int64 // how many times compute ran
	racy     bool
}

// NewRacyCache returns the cache with the check-then-act bug.
func NewRacyCache(compute func(string) int) *Cache {
	return &Cache{values: map[string]int{}, compute: compute, racy: true}
}

// NewCache returns the fixed cache: it checks and stores in one critical
// section.
func NewCache(compute func(string) int) *Cache {
	return &Cache{values: map[string]int{}, compute: compute}
}

// Get returns the value for key, computing it at most once.
func (c *Cache) Get(key string) int {
	if c.racy {
		c.mu.Lock()
		v, ok := c.values[key]
		c.mu.Unlock()
		if ok {
			return v
		}
		v = c.run(key)
		c.mu.Lock()
		c.values[key] = v
		c.mu.Unlock()
		return v
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.values[key]; ok {
		return v
	}
	v := c.run(key)
	c.values[key] = v
	return v
}

func (c *Cache) run(key string) int {
	c.computed.Add(1)
	return c.compute(key)
}

// Buggy is the test body that finds the bug.
func Buggy(t *weft.T) { getTwice(t, NewRacyCache(expensive)) }

// Fixed is the same test of the fixed code.
func Fixed(t *weft.T) { getTwice(t, NewCache(expensive)) }

func expensive(key string) int { return len(key) * 7 }

func getTwice(t *weft.T, c *Cache) {
	var wg sim.WaitGroup
	for range 2 {
		wg.Go(func() {
			if v := c.Get("answer"); v != expensive("answer") {
				t.Errorf("Get = %d", v)
			}
		})
	}
	wg.Wait()
	if n := c.computed.Load(); n != 1 {
		t.Errorf("the value was computed %d times, want once", n)
	}
}
