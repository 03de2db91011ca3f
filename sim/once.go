package sim

import (
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/weftdev/weft/internal/gls"
	"github.com/weftdev/weft/internal/race"
	"github.com/weftdev/weft/record"
	"github.com/weftdev/weft/sched"
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

	// Recording: a monitor.
	mu   sync.Mutex
	recq []*recWaiter
}

// finished is the Waiter of a goroutine that called Do while another runs f.
type finished onceState

//go:norace
func (w *finished) Ready() bool { return w.done }

// Shared makes the goroutines waiting for f one group (see
// sched.SharedWaiter).
func (w *finished) Shared() {}

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
	g, t := who()
	if g != nil {
		o.doControlled(g, f)
		return
	}
	if t != nil {
		o.recDo(t, f)
		return
	}
	if gls.Active() && !o.done.Load() {
		if o.visitDo() {
			return
		}
		// A Once done in plain mode is done in every execution too.
		outside(&o.st, opOnce, o)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.done.Load() {
		defer o.done.Store(true)
		f()
	}
}

// visitDo is Do from a goroutine outside the execution that owns o's state
// (see visit): the execution's Once is the one it takes, which the
// execution's own Do made, running or done: Do waits for it to be done,
// and returns without calling f. It reports whether it did; false: no
// running execution owns o, or it ended first.
//
//go:norace
func (o *Once) visitDo() bool {
	return visit(&o.st, opOnce, o, func(s *onceState, _ *sched.G) bool { return s.done })
}

// recDo is Do recording: the caller that takes the Once reports as it does;
// callers that find it done report then, and those that wait for f are
// reported on their behalf once f finished, all under the monitor.
func (o *Once) recDo(t *record.Thread, f func()) {
	s, l, r := recSync(&o.st, t)
	s.mu.Lock()
	switch {
	case s.done:
		r.Sync(t, l, sched.ReadWrite, 0)
		s.mu.Unlock()
	case s.running:
		w := newRecWaiter(t)
		s.recq = append(s.recq, w)
		s.mu.Unlock()
		w.wait()
	default:
		s.running = true
		r.Sync(t, l, sched.ReadWrite, 0)
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			s.running, s.done = false, true
			for _, w := range s.recq {
				r.Sync(w.t, l, sched.ReadWrite, 0)
				close(w.ch)
			}
			s.recq = nil
			s.mu.Unlock()
		}()
		f()
	}
}

// doControlled is Do under control. As with sync.Once, f's return happens
// before the return of every Do: the caller that ran f releases its
// happens-before state on the Once's state, the others acquire it.
//
//go:norace
func (o *Once) doControlled(g *sched.G, f func()) {
	s, fresh := newState(&o.st, g)
	if fresh {
		s.done = o.done.Load() // done outside executions (at package init): done in every one
	}
	g.StepReady(opOnce, s.id)
	switch {
	case s.done:
	case s.running:
		g.Park(opOnce, s.id, (*finished)(s))
	default:
		s.running = true
		defer s.ran(g)
		f()
		return
	}
	race.Acquire(unsafe.Pointer(s))
}

// ran marks the Once done once f returned or panicked, after f's events:
// its waiters look again.
//
//go:norace
func (s *onceState) ran(g *sched.G) {
	race.Release(unsafe.Pointer(s))
	s.running, s.done = false, true
	g.Touch(s.id)
}
