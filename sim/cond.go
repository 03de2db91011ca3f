package sim

import (
	"sync"
	"sync/atomic"

	"github.com/weftdev/weft/internal/gls"
	"github.com/weftdev/weft/record"
	"github.com/weftdev/weft/sched"
)

// A Cond is a condition variable, like sync.Cond: a rendezvous point for
// goroutines waiting for or announcing an event. L is held while the
// condition is checked or changed. Under control, L must be a weft lock
// (a *Mutex, an *RWMutex or its RLocker) for the waiters to be controlled.
type Cond struct {
	// L is held while observing or changing the condition.
	L sync.Locker

	plain atomic.Pointer[sync.Cond] // plain mode, made at first use
	st    *condState
}

type condState struct {
	object
	waiters []*ticket

	// Recording: a monitor.
	mu   sync.Mutex
	recq []*recWaiter
}

// NewCond returns a new Cond with Locker l.
func NewCond(l sync.Locker) *Cond {
	return &Cond{L: l}
}

// std returns the sync.Cond of plain mode, made at its first use so that a
// Cond literal with only L set works, as a sync.Cond literal does.
func (c *Cond) std() *sync.Cond {
	if p := c.plain.Load(); p != nil {
		return p
	}
	c.plain.CompareAndSwap(nil, sync.NewCond(c.L))
	return c.plain.Load()
}

// Wait atomically unlocks c.L and suspends the goroutine until Signal or
// Broadcast wakes it, then locks c.L again before returning. As with
// sync.Cond, Wait is called in a loop that checks the condition.
func (c *Cond) Wait() {
	g, t := who()
	if g != nil {
		c.waitControlled(g)
		return
	}
	if t != nil {
		// Two operations, as under control: the wait-before, enqueued,
		// and the wait-after, reported once a Signal or Broadcast
		// released the waiter: by the waker on its behalf if the waiter
		// was already blocked (armed), else by the waiter itself.
		s, l, r := recSync(&c.st, t)
		w := newRecWaiter(t)
		s.mu.Lock()
		s.recq = append(s.recq, w)
		r.Sync(t, l, sched.ReadWrite, 0)
		s.mu.Unlock()
		c.L.Unlock()
		t.Op(l)
		s.mu.Lock()
		if w.released {
			r.Sync(t, l, sched.ReadWrite, 0)
			s.mu.Unlock()
		} else {
			w.armed = true
			s.mu.Unlock()
			w.wait()
		}
		c.L.Lock()
		return
	}
	if gls.Active() {
		if c.visitWait() {
			return
		}
		outside(&c.st, opCondWait, c)
	}
	c.std().Wait()
}

// Signal wakes the goroutine that has waited longest, if any.
func (c *Cond) Signal() {
	g, t := who()
	if g != nil {
		c.signalControlled(g)
		return
	}
	if t != nil {
		s, l, r := recSync(&c.st, t)
		s.mu.Lock()
		r.Sync(t, l, sched.ReadWrite, 0)
		if len(s.recq) > 0 {
			s.recq[0].release(r, l)
			s.recq = s.recq[1:]
		}
		s.mu.Unlock()
		return
	}
	if gls.Active() {
		if visit(&c.st, opCondSignal, c, signalVisit) {
			return
		}
		outside(&c.st, opCondSignal, c)
	}
	c.std().Signal()
}

// Broadcast wakes all goroutines waiting on c.
func (c *Cond) Broadcast() {
	g, t := who()
	if g != nil {
		s := stateOf(&c.st, g)
		g.StepReady(opCondBcast, s.id)
		releaseAll(&s.waiters)
		return
	}
	if t != nil {
		s, l, r := recSync(&c.st, t)
		s.mu.Lock()
		r.Sync(t, l, sched.ReadWrite, 0)
		for _, w := range s.recq {
			w.release(r, l)
		}
		s.recq = nil
		s.mu.Unlock()
		return
	}
	if gls.Active() {
		if visit(&c.st, opCondBcast, c, broadcastVisit) {
			return
		}
		outside(&c.st, opCondBcast, c)
	}
	c.std().Broadcast()
}

// visitWait is Wait from a goroutine outside the execution that owns c's
// state (see visit): it queues a ticket of its own among the execution's
// waiters (a visit), unlocks c.L, waits for a Signal or Broadcast of the
// execution to release the ticket (another, tried at every stall), and
// locks c.L again. It reports whether it queued the ticket; false: no
// running execution owns c, or it ended first. If the execution ends
// while the ticket waits, Wait returns as though woken: no goroutine is
// left to signal the plain Cond, and a caller checks its condition again.
//
//go:norace
func (c *Cond) visitWait() bool {
	t := &ticket{}
	if !visit(&c.st, opCondWait, c, func(s *condState, _ *sched.G) bool {
		s.waiters = append(s.waiters, t)
		return true
	}) {
		return false
	}
	c.L.Unlock()
	visit(&c.st, opCondWait, c, func(*condState, *sched.G) bool { return t.released })
	c.L.Lock()
	return true
}

// signalVisit and broadcastVisit are Signal and Broadcast from a goroutine
// outside the execution that owns the Cond's state s (see visit): they
// wake the execution's waiters.
//
//go:norace
func signalVisit(s *condState, _ *sched.G) bool {
	s.signal()
	return true
}

//go:norace
func broadcastVisit(s *condState, _ *sched.G) bool {
	releaseAll(&s.waiters)
	return true
}

// release releases a Cond waiter, under the Cond's monitor: an armed
// (blocked) waiter's wait-after is reported here, on its behalf.
func (w *recWaiter) release(r record.Recorder, l *record.Loc) {
	w.released = true
	if w.armed {
		r.Sync(w.t, l, sched.ReadWrite, 0)
		close(w.ch)
	}
}

// The controlled paths. A Cond synchronizes through its lock only, as
// sync.Cond does: a Signal does not happen before the return of the Wait
// it wakes, but the waker's Unlock happens before the waiter's Lock.

//go:norace
func (c *Cond) waitControlled(g *sched.G) {
	s := stateOf(&c.st, g)
	g.StepReady(opCondWait, s.id)
	t := &ticket{g: g}
	s.waiters = append(s.waiters, t)
	c.L.Unlock()
	g.Step(opCondWait, s.id, t)
	c.L.Lock()
}

//go:norace
func (c *Cond) signalControlled(g *sched.G) {
	s := stateOf(&c.st, g)
	g.StepReady(opCondSignal, s.id)
	s.signal()
}

// signal releases the Cond's longest waiter, if any.
//
//go:norace
func (s *condState) signal() {
	if len(s.waiters) > 0 {
		s.waiters[0].release()
		s.waiters[0] = nil
		s.waiters = s.waiters[1:]
	}
}
