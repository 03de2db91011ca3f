package sim

// A ticket is a goroutine's place in a wait queue that another goroutine
// releases: a Cond waiter, a WaitGroup waiter, a reader admitted when a
// writer unlocks. Releasing a ticket wakes its goroutine for good, as Go's
// runtime does, even if the condition it waited for changes again before it
// runs.
type ticket struct{ released bool }

//go:norace
func (t *ticket) Ready() bool { return t.released }

// releaseAll releases every ticket of q and empties it.
//
//go:norace
func releaseAll(q *[]*ticket) {
	for _, t := range *q {
		t.released = true
	}
	*q = (*q)[:0]
}
