// Package loadorstore is a cache whose check-then-insert is not atomic:
// LoadOrStore looks the key up under a read lock and, missing it, stores
// its value under the write lock, without looking again. Two callers that
// miss the same key both store, both report that they stored, and the
// first one's value is silently replaced.
package loadorstore

import "github.com/weftdev/weft/sim"

// Cache maps strings to ints, read-mostly.
type Cache struct {
	mu   sim.RWMutex
	m    map[string]int
	racy bool
}

// NewRacy returns the cache whose LoadOrStore checks and inserts in two
// critical sections.
func NewRacy() *Cache { return &Cache{m: map[string]int{}, racy: true} }

// New returns the fixed cache: LoadOrStore looks again under the write
// lock before it stores.
func New() *Cache { return &Cache{m: map[string]int{}} }

// Load returns the value of key, if any.
func (c *Cache) Load(key string) (int, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	v, ok := c.m[key]
	return v, ok
}

// LoadOrStore returns the value of key if it has one (loaded is true);
// otherwise it stores v and returns it.
func (c *Cache) LoadOrStore(key string, v int) (actual int, loaded bool) {
	if a, ok := c.Load(key); ok {
		return a, true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.racy {
		if a, ok := c.m[key]; ok {
			return a, true
		}
	}
	c.m[key] = v
	return v, false
}

// Delete removes key.
func (c *Cache) Delete(key string) {
	c.mu.Lock()
	delete(c.m, key)
	c.mu.Unlock()
}
