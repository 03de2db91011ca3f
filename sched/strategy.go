package sched

// A Strategy decides, at every scheduling point where more than one
// goroutine could run, which one does; and it picks the values of data
// choices (sim.Intn, the case of a select with several ready cases).
//
// A Strategy serves one execution. All its methods are called by the
// controller from the single running goroutine, never concurrently.
type Strategy interface {
	// Spawned tells the strategy of a new goroutine, before it can be picked.
	// The root goroutine is reported too.
	Spawned(g *G)
	// Next returns the goroutine to run: one of d.Enabled.
	Next(d *Decision) *G
	// Choose returns a value in [0, n), n ≥ 2, for goroutine g's current
	// event.
	Choose(g *G, n int) int
}

// A Decision is a scheduling point with more than one enabled goroutine.
// It is only valid during the call to Strategy.Next.
type Decision struct {
	// Current is the goroutine at the scheduling point: it reached an event
	// (Current.Events() counts it), blocked, or exited.
	Current *G
	// Enabled are the goroutines that can run, in creation order. It may
	// or may not contain Current.
	Enabled []*G
	// Default is the goroutine the default policy runs: Current if it can
	// continue, else the next enabled goroutine after it in creation order.
	Default *G
	// Yield reports that Current called sim.Yield: it asks to let others run.
	Yield bool
	// Step counts the events of the execution so far, this one included.
	Step int
	// Index counts the decisions of the execution so far, this one
	// included.
	Index int
}

// CanContinue reports whether Current is enabled and did not yield: running
// any other goroutine preempts it.
func (d *Decision) CanContinue() bool {
	return !d.Yield && d.Default == d.Current
}

// An Observer is a Strategy that wants to know every goroutine the
// controller resumes, including those it runs without asking (the only
// enabled one): replay strategies track which recorded operations have
// been performed. Ran(g) is called as g is chosen to continue from its
// pending scheduling point (G.Op, G.Obj, G.Ops tell which).
type Observer interface {
	Ran(g *G)
}
