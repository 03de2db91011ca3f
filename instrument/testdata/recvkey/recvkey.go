// Package recvkey has an interface whose method's result, an unnamed
// channel, is on the line of the method's receiver, which has no name
// either: the interface value, handed to fmt. Before, the receiver and the
// result had one key, so fmt's decision for the interface value left the
// result Go's, and with it the clock's time.Tick (otter's Clock).
package recvkey

import (
	"fmt"
	"time"
)

// Clock hands out ticks.
type Clock interface {
	Tick(time.Duration) <-chan time.Time
}

type real struct{}

func (real) Tick(d time.Duration) <-chan time.Time { return time.Tick(d) }

// New returns the real clock.
func New() Clock { return real{} }

// Describe prints the clock: fmt sees the interface value, not its ticks.
func Describe(c Clock) string { return fmt.Sprint(c) }

// First waits for c's first tick.
func First(c Clock, d time.Duration) time.Time { return <-c.Tick(d) }
