package sched

import "time"

// A Strategy decides, at every scheduling point where more than one
// goroutine could run, which one does; and it picks the values of data
// choices (sim.Intn, the case of a select with several ready cases).
//
// A Strategy serves one execution. All its methods are called by the
// controller from the single running goroutine, never concurrently (under
// the race detector, from a goroutine of its own: see adviser.go).
type Strategy interface {
	// Spawned tells the strategy of a new goroutine, before it can be picked.
	// The root goroutine is reported too.
	Spawned(g *G)
	// Next returns the goroutine to run, one that d contains, or Clock to
	// fire the earliest pending timer first (when d.Timer).
	Next(d *Decision) *G
	// Choose returns a value in [0, n), n ≥ 2, for goroutine g's current
	// event.
	Choose(g *G, n int) int
}

// A Horizon is a Strategy that fires a timer early only when its deadline
// is within Horizon() of the clock: the controller offers it the Clock
// only then, or when a timer is due, so that a timer pending far ahead (a
// test's one-minute deadline) turns no event into a decision. Strategies
// without one are offered the Clock whenever a timer is pending.
type Horizon interface {
	Horizon() time.Duration
}

// An Observer is a Strategy that wants to know every goroutine the
// controller resumes, including those it runs without asking (the only
// enabled one): replay strategies track which recorded operations have
// been performed. Ran(g) is called as g is chosen to continue from its
// pending scheduling point (G.Op, G.Obj, G.Ops tell which).
type Observer interface {
	Ran(g *G)
}

// A Prioritizer is a Strategy that, at most decisions, runs the candidate
// of highest priority (Decision.Highest) and changes nothing else: at the
// decisions before the index Steady returns, wherever the goroutine at the
// decision does not yield, the Clock is not offered (Decision.Timer is
// false), it is the first decision of its event (Sub is 0), and no
// candidate starves (Decision.Starving is nil). The controller takes those
// decisions itself without asking Next, as Next would: an event of PCT's
// costs a quarter less.
type Prioritizer interface {
	// Steady returns the index (Decision.Index) of the first decision
	// after the last one asked of Next that Next must be asked even under
	// the conditions above; 0 if every one must be. It is asked after
	// every call to Next.
	Steady() int
}
