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
// process to reuse: r, a copy of it, and the Schedule r.Schedule returned
// must not be used after (what else r holds, its failures, KeptRunning,
// Trace and Digests, stays the caller's). A schedule wanted later is taken
// with r.Schedule before, and cloned.
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
	sp := c.spares()
	choices := c.choices // its chunks point into it: it stays where it is
	*c = Controller{}
	c.spare = sp
	c.choices = choices
	c.choices.reset(spareChoices)
	controllers.Put(c)
}

// spares are the buffers beyond its own arrays that a controller grew
// during an execution and keeps for its next one, emptied: a Schedule, the
// slabs of goroutines and the list of them, the table of objects' values (the chunks of choices stay in
// the controller: see chunks.reset). An exploration of one test runs
// executions of about the same size, and these cost a small execution more
// than its own events (a random walk's execution of 2 goroutines × 10
// events makes a dozen choices).
type spares struct {
	schedule Schedule
	slabs    [][]G
	all      []*G
	values   []objValue // what the controller knows of objects' values (spin.go)
	cands    candSpares // the candidates' trees and heaps
}

// Bounds on what a released controller keeps: a huge execution's
// buffers go to the garbage collector.
const (
	spareChoices = 1024 // of a Schedule, and of recorded choices
	spareGs      = 256
	spareValues  = 1024 // objects
)

// spares empties the buffers c grew during its execution, within the
// bounds, for its next one.
func (c *Controller) spares() spares {
	// What the execution did not need is kept too: executions of one
	// test differ in size.
	var sp spares
	if s := c.schedMem; s != nil && cap(s) <= spareChoices {
		sp.schedule = s[:cap(s)]
		clear(sp.schedule) // its strings and sites
		sp.schedule = sp.schedule[:0]
	} else if s == nil {
		sp.schedule = c.spare.schedule
	}
	slabs := c.slabs // the spare slabs, those taken first
	if len(c.spare.slabs) > len(slabs) {
		slabs = c.spare.slabs
	}
	n, keep := 0, 0
	for _, slab := range slabs {
		if n += len(slab); n > spareGs {
			break
		}
		clear(slab)
		keep++
	}
	clear(slabs[keep:])
	sp.slabs = slabs[:keep]
	if cap(c.all) > len(c.allBuf) && cap(c.all) <= spareGs {
		sp.all = c.all[:cap(c.all)]
		clear(sp.all)
		sp.all = sp.all[:0]
	}
	sp.cands = c.cands.spares(spareGs)
	if cap(c.values) <= spareValues {
		sp.values = c.values[:0]
	} else {
		sp.values = c.spare.values
	}
	return sp
}

// Execution returns the number of c's current execution in the process,
// from 1: unique to the execution, where the controller itself serves one
// execution after another once its Result is released. The primitives'
// state names the execution it belongs to by it.
//
//go:norace
func (c *Controller) Execution() uint64 { return c.seq }
