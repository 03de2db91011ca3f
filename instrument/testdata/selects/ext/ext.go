// Package ext is code weft does not instrument: a fake clock whose
// channels fire when a test advances it, and a channel that is ready.
package ext

import (
	"sync"
	"time"
)

// Clock is a fake clock.
type Clock struct {
	mu      sync.Mutex
	now     int
	waiters []waiter
}

type waiter struct {
	at int
	c  chan int
}

// After returns a channel that receives the clock's time once it reaches
// now+d.
func (c *Clock) After(d int) <-chan int {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan int, 1)
	c.waiters = append(c.waiters, waiter{c.now + d, ch})
	return ch
}

// Add advances the clock, firing the channels whose time came.
func (c *Clock) Add(d int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now += d
	kept := c.waiters[:0]
	for _, w := range c.waiters {
		if w.at <= c.now {
			w.c <- c.now
			continue
		}
		kept = append(kept, w)
	}
	c.waiters = kept
}

// Ready returns a closed channel.
func Ready() <-chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}

// Later returns a channel that a goroutine of its own, which weft does not
// control, sends on after d of real time.
func Later(d time.Duration) <-chan int {
	c := make(chan int)
	go func() {
		time.Sleep(d)
		c <- 1
	}()
	return c
}
