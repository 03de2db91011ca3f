package sim

import "sync"

// A Once performs exactly one action, like sync.Once. Its zero value is
// ready to use.
type Once struct {
	o  sync.Once
	st *onceState
}

type onceState struct {
	object
	running, done bool
}

// finished is the Waiter of a goroutine that called Do while another runs f.
type finished onceState

func (w *finished) Ready() bool { return w.done }

// Do calls f if and only if Do is being called for the first time for this
// Once. Other callers wait until f returns. If f panics, Do considers it
// returned. Calling Do from f deadlocks.
func (o *Once) Do(f func()) {
	if g := current(); g != nil {
		s := stateOf(&o.st, g)
		g.Step(opOnce, s.id, nil)
		if s.done {
			return
		}
		if s.running {
			g.Step(opOnce, s.id, (*finished)(s))
			return
		}
		s.running = true
		defer func() { s.running, s.done = false, true }()
		f()
		return
	}
	o.o.Do(f)
}
