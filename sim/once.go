package sim

import (
	"sync"
	"sync/atomic"

	"github.com/weftdev/weft/internal/gls"
)

// A Once performs exactly one action, like sync.Once. Its zero value is
// ready to use.
type Once struct {
	done atomic.Bool // plain mode, as in sync.Once
	mu   sync.Mutex
	st   *onceState
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
	// The fast path is inlined, as sync.Once's is; under control the state
	// is the execution's own, so every call goes the slow way.
	if !o.done.Load() || gls.Active() {
		o.doSlow(f)
	}
}

func (o *Once) doSlow(f func()) {
	if g := current(); g != nil {
		s := stateOf(&o.st, g)
		g.Step(opOnce, s.id, nil)
		switch {
		case s.done:
		case s.running:
			g.Park(opOnce, s.id, (*finished)(s))
		default:
			s.running = true
			defer func() { s.running, s.done = false, true }()
			f()
		}
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.done.Load() {
		defer o.done.Store(true)
		f()
	}
}
