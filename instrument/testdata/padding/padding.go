// Package padding pads a struct of sync's and atomic's types to a cache
// line with unsafe.Sizeof, as puzpuzpuz/xsync's Map does: weft's twins
// are larger, and the padding keeps the length Go's types give it rather
// than go negative.
package padding

import (
	"sync"
	"sync/atomic"
	"unsafe"
)

const cacheLine = 64

type bucket struct {
	mu sync.Mutex
	n  atomic.Int64
}

type padded struct {
	bucket
	_ [cacheLine - unsafe.Sizeof(bucket{})%cacheLine]byte
}

// Counter counts over a few padded buckets.
type Counter struct{ buckets [4]padded }

// Add adds d to bucket i.
func (c *Counter) Add(i int, d int64) {
	b := &c.buckets[i%len(c.buckets)]
	b.mu.Lock()
	b.n.Add(d)
	b.mu.Unlock()
}

// Sum returns the sum of the buckets.
func (c *Counter) Sum() int64 {
	var s int64
	for i := range c.buckets {
		s += c.buckets[i].n.Load()
	}
	return s
}
