package sim

import (
	"sync"
	"unsafe"

	"github.com/weftdev/weft/internal/gls"
	"github.com/weftdev/weft/internal/race"
	"github.com/weftdev/weft/sched"
)

// A WaitGroup waits for a collection of goroutines to finish, like
// sync.WaitGroup. Its zero value is ready to use.
type WaitGroup struct {
	wg sync.WaitGroup
	st *wgState
}

type wgState struct {
	object
	count   int
	waiters []*ticket
	// The first waiter's ticket, and waiters' first backing array, in
	// the state: one Wait at a time, the common case, allocates nothing.
	first     ticket
	firstBusy bool // first is in use: its goroutine has not returned from Wait
	waitBuf   [1]*ticket
	// What the race detector sees of misuse, as sync.WaitGroup shows it:
	// the Add that takes the counter from zero reads it, the Wait that
	// blocks first writes it, so that an Add not ordered with a Wait is
	// reported as a race.
	misuse byte

	// Recording: a monitor.
	mu   sync.Mutex
	recq []*recWaiter
}

// Add adds delta, which may be negative, to the counter. When the counter
// reaches zero, every goroutine blocked in Wait is released. A negative
// counter panics.
func (wg *WaitGroup) Add(delta int) { wg.add(opWGAdd, delta) }

// Done decrements the counter by one.
func (wg *WaitGroup) Done() { wg.add(opWGDone, -1) }

func (wg *WaitGroup) add(op *sched.Op, delta int) {
	g, t := who()
	if g != nil {
		wg.addControlled(g, op, delta)
		return
	}
	if t != nil {
		s, l, r := recSync(&wg.st, t)
		s.mu.Lock()
		s.count += delta
		if s.count < 0 {
			s.mu.Unlock()
			panic("sync: negative WaitGroup counter")
		}
		r.Sync(t, l, sched.ReadWrite, 0)
		if s.count == 0 {
			// The waiters see zero now: their Wait is reported here,
			// on their behalf.
			for _, w := range s.recq {
				r.Sync(w.t, l, sched.Read, 0)
				close(w.ch)
			}
			s.recq = nil
		}
		s.mu.Unlock()
		return
	}
	if gls.Active() {
		if wg.visitAdd(op, delta) {
			return
		}
		outside(&wg.st, op, wg)
	}
	wg.wg.Add(delta)
}

// visitAdd is Add from a goroutine outside the execution that owns wg's
// state (see visit): a server's handler on a goroutine net/http started,
// which left the execution, calls Done for the test's Wait. The counter
// is the execution's, and so are the waiters it releases. It reports
// whether it added; false: no running execution owns wg, it ended first,
// or its counter would go below zero.
//
//go:norace
func (wg *WaitGroup) visitAdd(op *sched.Op, delta int) bool {
	negative := false
	done := visit(&wg.st, op, wg, func(s *wgState, g *sched.G) bool {
		if s.count+delta < 0 {
			negative = true
			return true
		}
		s.count += delta
		if s.count == 0 {
			releaseAll(&s.waiters)
		}
		g.Touch(s.id)
		return true
	})
	// A counter the execution's side would take below zero was added to
	// in plain mode (an Add of the goroutine's that the execution
	// refused): the plain counter's, which the caller reports.
	return done && !negative
}

// visitWait is Wait from a goroutine outside the execution that owns wg's
// state: it waits for the execution's counter to be zero.
//
//go:norace
func (wg *WaitGroup) visitWait() bool {
	return visit(&wg.st, opWGWait, wg, func(s *wgState, _ *sched.G) bool { return s.count == 0 })
}

// Wait blocks until the counter is zero.
func (wg *WaitGroup) Wait() {
	g, t := who()
	if g != nil {
		wg.waitControlled(g)
		return
	}
	if t != nil {
		s, l, r := recSync(&wg.st, t)
		s.mu.Lock()
		if s.count == 0 {
			r.Sync(t, l, sched.Read, 0)
			s.mu.Unlock()
			return
		}
		w := newRecWaiter(t)
		s.recq = append(s.recq, w)
		s.mu.Unlock()
		w.wait()
		return
	}
	if gls.Active() {
		if wg.visitWait() {
			return
		}
		outside(&wg.st, opWGWait, wg)
	}
	wg.wg.Wait()
}

// Go calls f in a new goroutine (started with sim.Go) and adds that task to
// the group, like sync.WaitGroup.Go.
func (wg *WaitGroup) Go(f func()) {
	wg.Add(1)
	Go(func() {
		defer wg.Done()
		f()
	})
}

// The controlled paths. As sync.WaitGroup tells the race detector, every
// Done (every Add of a negative delta) happens before the Wait it
// releases, and before any Wait that finds the counter at zero; and the
// first Add (from zero) must happen before a Wait that blocks, or after it
// returned: the two access misuse, a race otherwise (Add called
// concurrently with Wait, which go test -race reports).

//go:norace
func (wg *WaitGroup) addControlled(g *sched.G, op *sched.Op, delta int) {
	s := stateOf(&wg.st, g)
	g.StepReady(op, s.id)
	if delta < 0 {
		race.ReleaseMerge(unsafe.Pointer(s))
	}
	s.count += delta
	if s.count < 0 {
		panic("sync: negative WaitGroup counter")
	}
	if delta > 0 && s.count == delta {
		race.Read(unsafe.Pointer(&s.misuse))
	}
	if s.count == 0 {
		releaseAll(&s.waiters)
	}
}

//go:norace
func (wg *WaitGroup) waitControlled(g *sched.G) {
	s := stateOf(&wg.st, g)
	g.StepReady(opWGWait, s.id)
	if s.count > 0 {
		var t *ticket
		if s.firstBusy {
			t = &ticket{g: g}
		} else {
			s.first, s.firstBusy, t = ticket{g: g}, true, &s.first
		}
		if s.waiters == nil {
			s.waiters = s.waitBuf[:0]
		}
		if len(s.waiters) == 0 {
			race.Write(unsafe.Pointer(&s.misuse))
		}
		s.waiters = append(s.waiters, t)
		g.Park(opWGWait, s.id, t)
		if t == &s.first {
			s.firstBusy = false
		}
	}
	race.Acquire(unsafe.Pointer(s))
}
