// Package timing relies on time the way real tests do: a warm-up that
// sleeps instead of waiting (the one bug), loops that poll while another
// goroutine sleeps, a ticker left running, a clock read at package init.
package timing

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Cache is filled by a background goroutine.
type Cache struct {
	mu sync.Mutex
	m  map[int]int
}

// Warm starts filling c in the background. With wait, it returns when the
// cache is full; without, after a millisecond, assuming that is enough:
// the bug.
func Warm(c *Cache, n int, wait bool) {
	c.m = map[int]int{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range n {
			c.mu.Lock()
			c.m[i] = i * i
			c.mu.Unlock()
		}
	}()
	if wait {
		<-done
		return
	}
	time.Sleep(time.Millisecond)
}

// Len returns the number of cached values.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

// SpinUntil yields until flag is set.
func SpinUntil(flag *atomic.Bool) {
	for !flag.Load() {
		runtime.Gosched()
	}
}

// PollUntil polls done with a select and a default until it is closed.
func PollUntil(done <-chan struct{}) {
	for {
		select {
		case <-done:
			return
		default:
		}
	}
}
