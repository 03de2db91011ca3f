package sim

import "github.com/weftdev/weft/sched"

// A ticket is a goroutine's place in a wait queue that another goroutine
// releases: a Cond waiter, a WaitGroup waiter, a reader admitted when a
// writer unlocks. Releasing a ticket wakes its goroutine for good, as Go's
// runtime does, even if the condition it waited for changes again before it
// runs.
//
// A ticket names no object (see sched.MultiWaiter): releasing it wakes its
// goroutine by name, so that a change of the object (a Signal, a Done)
// costs the same with one goroutine waiting or ten thousand.
type ticket struct {
	g        *sched.G // the goroutine waiting; nil: one outside the execution (see Cond.visitWait)
	released bool
}

//go:norace
func (t *ticket) Ready() bool { return t.released }

// Objects names none: the releaser wakes the goroutine.
func (t *ticket) Objects() []uint32 { return nil }

// release releases t and wakes its goroutine.
//
//go:norace
func (t *ticket) release() {
	t.released = true
	if t.g != nil {
		t.g.Recheck()
	}
}

// releaseAll releases every ticket of q and empties it.
//
//go:norace
func releaseAll(q *[]*ticket) {
	for _, t := range *q {
		t.release()
	}
	clear(*q)
	*q = (*q)[:0]
}
