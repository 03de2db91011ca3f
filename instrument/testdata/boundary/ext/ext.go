// Package ext is code weft does not instrument.
package ext

import (
	"sync"
	"time"
)

// Wait receives from a timer's channel.
func Wait(c <-chan time.Time) time.Time { return <-c }

// Events returns a channel of events.
func Events() <-chan int {
	c := make(chan int, 1)
	c <- 1
	close(c)
	return c
}

// Lock locks and unlocks a mutex.
func Lock(mu *sync.Mutex) { mu.Lock(); mu.Unlock() }
