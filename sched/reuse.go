package sched

import "sync"

// Reuse. A controller is 3 KB with the Result, the first goroutines and the
// first choices in it: made for every execution, it is most of what a small
// execution allocates, and what keeps the garbage collector busy (its
// cycles bring write barriers and preemptions to scan stacks). A caller
// that is done with a Result gives it back (Result.Release), and the next
// execution of the process runs on the same controller.
//
// An execution is never told apart from another by its controller's
// address, which a later execution may share: primitives name the
// execution their state belongs to by Controller.Execution, and a timer
// set in an earlier execution is no timer of a later one (see Timer.Stop).

// controllers holds the controllers of released Results, zeroed.
var controllers = sync.Pool{New: func() any { return new(Controller) }}

// newController returns a zeroed controller.
func newController() *Controller { return controllers.Get().(*Controller) }

// Release gives r's memory back, for a later execution of Run in the
// process to reuse: r and its Schedule must not be used after (what else r
// holds, its failures, KeptRunning, Trace and Digests, stays the caller's).
// Releasing is optional: a Result never released is collected as garbage
// once unreachable. A Result that Run made but may not be reused (under the
// race detector, or when a goroutine escaped or blocked the execution, and
// may still use its controller), a copy of a Result, or one already
// released, is left alone. An exploration releases the Results of the
// executions it does not keep, the passing ones; a failing one, minimized
// and saved, is never released.
func (r *Result) Release() {
	c := r.c
	if c == nil || &c.res != r {
		return
	}
	*c = Controller{}
	controllers.Put(c)
}

// Execution returns the number of c's current execution in the process,
// from 1: unique to the execution, where the controller itself serves one
// execution after another once its Result is released. The primitives'
// state names the execution it belongs to by it.
//
//go:norace
func (c *Controller) Execution() uint64 { return c.seq }
