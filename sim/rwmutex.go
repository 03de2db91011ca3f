package sim

import (
	"sync"
	"unsafe"

	"github.com/weftdev/weft/internal/gls"
	"github.com/weftdev/weft/internal/race"
	"github.com/weftdev/weft/record"
	"github.com/weftdev/weft/sched"
)

// An RWMutex is a reader/writer mutual exclusion lock, like sync.RWMutex:
// held by any number of readers or by one writer. As in Go, a writer waiting
// in Lock keeps new readers out, so a reader must not lock recursively; and
// readers waiting when a writer unlocks get in before the next writer. Its
// zero value is an unlocked mutex.
type RWMutex struct {
	mu sync.RWMutex
	st *rwState
}

type rwState struct {
	object
	writer  bool      // a writer holds the lock or waits for readers to leave
	readers int       // readers holding the lock
	queued  []*ticket // readers waiting for the writer to leave
	// Goroutines outside the execution that hold it (see visitLock and
	// visitRLock), with the mutex's plain one: a writer, readers.
	visitWriter  bool
	visitReaders int

	// For the race detector, as sync.RWMutex's readerSem and writerSem:
	// a writer's Unlock leaves its happens-before state in readerClock
	// for the readers and the writer that come next; each RUnlock adds
	// its reader's to writerClock, for the next writer.
	readerClock, writerClock byte

	// Recording: a monitor.
	mu      sync.Mutex
	rq      []*recWaiter  // readers waiting for the writer to leave
	wq      []*recWaiter  // writers waiting for the writer to leave
	drained chan struct{} // closed when the readers a writer waits for left
}

// noWriter is the Waiter of a writer's Lock: one writer at a time.
type noWriter rwState

//go:norace
func (w *noWriter) Ready() bool { return !w.writer }

// Shared makes the writers waiting for the lock one group (see
// sched.SharedWaiter).
func (w *noWriter) Shared() {}

// noReaders is the Waiter of a writer that announced itself and waits for
// the readers to leave.
type noReaders rwState

//go:norace
func (w *noReaders) Ready() bool { return w.readers == 0 }

// Shared: see sched.SharedWaiter.
func (w *noReaders) Shared() {}

// Lock locks rw for writing.
func (rw *RWMutex) Lock() {
	g, t := who()
	if g != nil {
		rw.lockControlled(g)
		return
	}
	if t != nil {
		rw.recLock(t)
		return
	}
	rw.mu.Lock()
	if gls.Active() && !rw.visitLock() {
		outside(&rw.st, opRWLock, rw)
	}
}

// TryLock tries to lock rw for writing and reports whether it succeeded.
func (rw *RWMutex) TryLock() bool {
	g, t := who()
	if g != nil {
		return rw.tryLockControlled(g)
	}
	if t != nil {
		s, l, r := recSync(&rw.st, t)
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.writer || s.readers > 0 {
			r.Sync(t, l, sched.Read, 0) // it saw the lock held
			return false
		}
		s.writer = true
		r.Sync(t, l, sched.ReadWrite, 0)
		return true
	}
	if gls.Active() {
		outside(&rw.st, opRWTryLock, rw)
	}
	return rw.mu.TryLock()
}

// Unlock unlocks rw for writing, admitting the readers that wait.
func (rw *RWMutex) Unlock() {
	g, t := who()
	if g != nil {
		rw.unlockControlled(g)
		return
	}
	if t != nil {
		rw.recUnlock(t)
		return
	}
	if gls.Active() && !rw.visitUnlock() {
		outside(&rw.st, opRWUnlock, rw)
	}
	rw.mu.Unlock()
}

// RLock locks rw for reading.
func (rw *RWMutex) RLock() {
	g, t := who()
	if g != nil {
		rw.rLockControlled(g)
		return
	}
	if t != nil {
		s, l, r := recSync(&rw.st, t)
		s.mu.Lock()
		if !s.writer {
			s.readers++
			r.Sync(t, l, sched.ReadWrite, 0)
			s.mu.Unlock()
			return
		}
		w := newRecWaiter(t)
		s.rq = append(s.rq, w)
		s.mu.Unlock()
		w.wait() // the writer's Unlock admits and reports us
		return
	}
	rw.mu.RLock()
	if gls.Active() && !rw.visitRLock() {
		outside(&rw.st, opRLock, rw)
	}
}

// TryRLock tries to lock rw for reading and reports whether it succeeded.
func (rw *RWMutex) TryRLock() bool {
	g, t := who()
	if g != nil {
		return rw.tryRLockControlled(g)
	}
	if t != nil {
		s, l, r := recSync(&rw.st, t)
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.writer {
			r.Sync(t, l, sched.Read, 0) // it saw the lock held
			return false
		}
		s.readers++
		r.Sync(t, l, sched.ReadWrite, 0)
		return true
	}
	if gls.Active() {
		outside(&rw.st, opTryRLock, rw)
	}
	return rw.mu.TryRLock()
}

// RUnlock undoes a single RLock.
func (rw *RWMutex) RUnlock() {
	g, t := who()
	if g != nil {
		rw.rUnlockControlled(g)
		return
	}
	if t != nil {
		s, l, r := recSync(&rw.st, t)
		s.mu.Lock()
		if s.readers == 0 {
			s.mu.Unlock()
			panic("sync: RUnlock of unlocked RWMutex")
		}
		s.readers--
		r.Sync(t, l, sched.ReadWrite, 0)
		if s.readers == 0 && s.drained != nil {
			close(s.drained)
			s.drained = nil
		}
		s.mu.Unlock()
		t.Released()
		return
	}
	if gls.Active() && !rw.visitRUnlock() {
		outside(&rw.st, opRUnlock, rw)
	}
	rw.mu.RUnlock()
}

// visitLock is Lock from a goroutine outside the execution that owns rw's
// state (see visit), which holds rw's plain lock for writing: it takes the
// execution's side too, once neither a writer nor a reader holds it. It
// reports whether it did; false: no running execution owns rw, or it
// ended first.
//
//go:norace
func (rw *RWMutex) visitLock() bool {
	return visit(&rw.st, opRWLock, rw, func(s *rwState, g *sched.G) bool {
		if s.writer || s.readers > 0 {
			return false
		}
		s.writer, s.visitWriter = true, true
		g.Touch(s.id)
		return true
	})
}

// visitUnlock is Unlock from a goroutine outside the execution, which
// holds rw's plain lock: it frees the execution's side if its Lock took
// it (visitLock), admitting the readers that wait, as Unlock does. It
// reports whether there is nothing to report (see Mutex.visitUnlock).
//
//go:norace
func (rw *RWMutex) visitUnlock() bool {
	if s := rw.st; s == nil || !s.visitWriter {
		return true
	}
	return visit(&rw.st, opRWUnlock, rw, func(s *rwState, g *sched.G) bool {
		s.writer, s.visitWriter = false, false
		s.readers += len(s.queued)
		releaseAll(&s.queued)
		g.Touch(s.id)
		return true
	})
}

// visitRLock is RLock from a goroutine outside the execution that owns
// rw's state, which holds rw's plain lock for reading: it takes the
// execution's side for reading too, once no writer holds it or waits.
//
//go:norace
func (rw *RWMutex) visitRLock() bool {
	return visit(&rw.st, opRLock, rw, func(s *rwState, g *sched.G) bool {
		if s.writer {
			return false
		}
		s.readers++
		s.visitReaders++
		g.Touch(s.id)
		return true
	})
}

// visitRUnlock is RUnlock from a goroutine outside the execution: it
// leaves the execution's side if a visitor's RLock took it (visitRLock).
//
//go:norace
func (rw *RWMutex) visitRUnlock() bool {
	if s := rw.st; s == nil || s.visitReaders == 0 {
		return true
	}
	return visit(&rw.st, opRUnlock, rw, func(s *rwState, g *sched.G) bool {
		if s.visitReaders > 0 {
			s.readers--
			s.visitReaders--
		}
		g.Touch(s.id)
		return true
	})
}

// recLock is Lock recording: one operation, reported once the writer holds
// the lock and the readers left.
func (rw *RWMutex) recLock(t *record.Thread) {
	s, l, r := recSync(&rw.st, t)
	s.mu.Lock()
	for s.writer {
		w := newRecWaiter(t)
		s.wq = append(s.wq, w)
		s.mu.Unlock()
		w.wait()
		s.mu.Lock()
	}
	s.writer = true
	for s.readers > 0 {
		if s.drained == nil {
			s.drained = make(chan struct{})
		}
		d := s.drained
		s.mu.Unlock()
		<-d
		s.mu.Lock()
	}
	r.Sync(t, l, sched.ReadWrite, 0)
	s.mu.Unlock()
}

// recUnlock is Unlock recording: it reports its own access, then admits the
// waiting readers, reporting their RLock on their behalf, and wakes the
// waiting writers to compete again.
func (rw *RWMutex) recUnlock(t *record.Thread) {
	s, l, r := recSync(&rw.st, t)
	s.mu.Lock()
	if !s.writer || s.readers > 0 {
		s.mu.Unlock()
		panic("sync: Unlock of unlocked RWMutex")
	}
	r.Sync(t, l, sched.ReadWrite, 0)
	s.writer = false
	for _, w := range s.rq {
		s.readers++
		r.Sync(w.t, l, sched.ReadWrite, 0)
		close(w.ch)
	}
	s.rq = nil
	for _, w := range s.wq {
		close(w.ch)
	}
	s.wq = nil
	s.mu.Unlock()
	t.Released()
}

// RLocker returns a sync.Locker whose Lock and Unlock call RLock and
// RUnlock.
func (rw *RWMutex) RLocker() sync.Locker { return (*rlocker)(rw) }

type rlocker RWMutex

func (r *rlocker) Lock()   { (*RWMutex)(r).RLock() }
func (r *rlocker) Unlock() { (*RWMutex)(r).RUnlock() }

// The controlled paths, with the happens-before edges sync.RWMutex tells
// the race detector about (see rwState).

//go:norace
func (rw *RWMutex) lockControlled(g *sched.G) {
	s := stateOf(&rw.st, g)
	g.Step(opRWLock, s.id, (*noWriter)(s))
	s.writer = true
	if s.readers > 0 {
		g.Park(opRWLockWait, s.id, (*noReaders)(s))
	}
	s.acquireWrite()
}

//go:norace
func (rw *RWMutex) tryLockControlled(g *sched.G) bool {
	s := stateOf(&rw.st, g)
	g.StepReady(opRWTryLock, s.id)
	if s.writer || s.readers > 0 {
		g.Polled()
		return false
	}
	s.writer = true
	s.acquireWrite()
	return true
}

//go:norace
func (rw *RWMutex) unlockControlled(g *sched.G) {
	s := stateOf(&rw.st, g)
	g.StepReady(opRWUnlock, s.id)
	if !s.writer || s.readers > 0 {
		panic("sync: Unlock of unlocked RWMutex")
	}
	race.Release(unsafe.Pointer(&s.readerClock))
	s.writer = false
	s.readers += len(s.queued)
	releaseAll(&s.queued)
}

//go:norace
func (rw *RWMutex) rLockControlled(g *sched.G) {
	s := stateOf(&rw.st, g)
	g.StepReady(opRLock, s.id)
	if !s.writer {
		s.readers++
	} else {
		t := &ticket{g: g}
		s.queued = append(s.queued, t)
		g.Park(opRLockWait, s.id, t)
	}
	race.Acquire(unsafe.Pointer(&s.readerClock))
}

//go:norace
func (rw *RWMutex) tryRLockControlled(g *sched.G) bool {
	s := stateOf(&rw.st, g)
	g.StepReady(opTryRLock, s.id)
	if s.writer {
		g.Polled()
		return false
	}
	s.readers++
	race.Acquire(unsafe.Pointer(&s.readerClock))
	return true
}

//go:norace
func (rw *RWMutex) rUnlockControlled(g *sched.G) {
	s := stateOf(&rw.st, g)
	g.StepReady(opRUnlock, s.id)
	if s.readers == 0 {
		panic("sync: RUnlock of unlocked RWMutex")
	}
	race.ReleaseMerge(unsafe.Pointer(&s.writerClock))
	s.readers--
}

// acquireWrite is a writer's taking of the lock: it happens after the
// previous writer's Unlock and every reader's RUnlock.
func (s *rwState) acquireWrite() {
	race.Acquire(unsafe.Pointer(&s.readerClock))
	race.Acquire(unsafe.Pointer(&s.writerClock))
}
