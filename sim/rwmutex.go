package sim

import "sync"

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
}

// noWriter is the Waiter of a writer's Lock: one writer at a time.
type noWriter rwState

func (w *noWriter) Ready() bool { return !w.writer }

// noReaders is the Waiter of a writer that announced itself and waits for
// the readers to leave.
type noReaders rwState

func (w *noReaders) Ready() bool { return w.readers == 0 }

// Lock locks rw for writing.
func (rw *RWMutex) Lock() {
	if g := current(); g != nil {
		s := stateOf(&rw.st, g)
		g.Step(opRWLock, s.id, (*noWriter)(s))
		s.writer = true
		if s.readers > 0 {
			g.Park(opRWLockWait, s.id, (*noReaders)(s))
		}
		return
	}
	rw.mu.Lock()
}

// TryLock tries to lock rw for writing and reports whether it succeeded.
func (rw *RWMutex) TryLock() bool {
	if g := current(); g != nil {
		s := stateOf(&rw.st, g)
		g.Step(opRWTryLock, s.id, nil)
		if s.writer || s.readers > 0 {
			return false
		}
		s.writer = true
		return true
	}
	return rw.mu.TryLock()
}

// Unlock unlocks rw for writing, admitting the readers that wait.
func (rw *RWMutex) Unlock() {
	if g := current(); g != nil {
		s := stateOf(&rw.st, g)
		g.Step(opRWUnlock, s.id, nil)
		if !s.writer || s.readers > 0 {
			panic("sync: Unlock of unlocked RWMutex")
		}
		s.writer = false
		s.readers += len(s.queued)
		releaseAll(&s.queued)
		return
	}
	rw.mu.Unlock()
}

// RLock locks rw for reading.
func (rw *RWMutex) RLock() {
	if g := current(); g != nil {
		s := stateOf(&rw.st, g)
		g.Step(opRLock, s.id, nil)
		if !s.writer {
			s.readers++
			return
		}
		t := &ticket{}
		s.queued = append(s.queued, t)
		g.Park(opRLockWait, s.id, t)
		return
	}
	rw.mu.RLock()
}

// TryRLock tries to lock rw for reading and reports whether it succeeded.
func (rw *RWMutex) TryRLock() bool {
	if g := current(); g != nil {
		s := stateOf(&rw.st, g)
		g.Step(opTryRLock, s.id, nil)
		if s.writer {
			return false
		}
		s.readers++
		return true
	}
	return rw.mu.TryRLock()
}

// RUnlock undoes a single RLock.
func (rw *RWMutex) RUnlock() {
	if g := current(); g != nil {
		s := stateOf(&rw.st, g)
		g.Step(opRUnlock, s.id, nil)
		if s.readers == 0 {
			panic("sync: RUnlock of unlocked RWMutex")
		}
		s.readers--
		return
	}
	rw.mu.RUnlock()
}

// RLocker returns a sync.Locker whose Lock and Unlock call RLock and
// RUnlock.
func (rw *RWMutex) RLocker() sync.Locker { return (*rlocker)(rw) }

type rlocker RWMutex

func (r *rlocker) Lock()   { (*RWMutex)(r).RLock() }
func (r *rlocker) Unlock() { (*RWMutex)(r).RUnlock() }
