// Package rlockwrite is a map written under a read lock: a cache looks keys
// up under RLock, and on a miss stores the computed value before it lets
// go, still holding only the read lock. Two readers hold it at once and
// write the map together. Under weft's controller the writes never overlap,
// so the map never breaks; the race detector (go test -race) reports them,
// since readers are not ordered with each other.
package rlockwrite

import (
	"github.com/weftdev/weft/sim"
	weft "github.com/weftdev/weft/testing"
)

// Cache memoizes compute.
type Cache struct {
	mu     sim.RWMutex
	values map[string]int
	racy   bool // the bug: fill the map under the read lock
}

// NewRacyCache returns the cache that writes under the read lock.
func NewRacyCache() *Cache { return &Cache{values: map[string]int{}, racy: true} }

// NewCache returns the cache that takes the write lock to store: the fix.
func NewCache() *Cache { return &Cache{values: map[string]int{}} }

// Get returns compute(key), computed once.
func (c *Cache) Get(key string) int {
	c.mu.RLock()
	v, ok := c.values[key]
	if !ok && c.racy {
		v = compute(key)
		c.values[key] = v
	}
	c.mu.RUnlock()
	if ok || c.racy {
		return v
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.values[key]; ok {
		return v
	}
	v = compute(key)
	c.values[key] = v
	return v
}

func compute(key string) int { return len(key) }

// Buggy is the test body that finds the bug.
func Buggy(t *weft.T) { twoKeys(t, NewRacyCache()) }

// Fixed is the same test of the fixed code.
func Fixed(t *weft.T) { twoKeys(t, NewCache()) }

func twoKeys(t *weft.T, c *Cache) {
	var wg sim.WaitGroup
	for _, key := range []string{"a", "bb"} {
		wg.Go(func() {
			if v := c.Get(key); v != len(key) {
				t.Errorf("Get(%q) = %d", key, v)
			}
		})
	}
	wg.Wait()
}
