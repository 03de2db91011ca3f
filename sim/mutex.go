package sim

import (
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/sasha-s/go-deadlock"
	"github.com/weftdev/weft/internal/gls"
	"github.com/weftdev/weft/internal/race"
	"github.com/weftdev/weft/record"
	"github.com/weftdev/weft/sched"
)

// A Mutex is a mutual exclusion lock, like sync.Mutex. Its zero value is
// an unlocked mutex.
type Mutex struct {
	mu sync.Mutex
	st *mutexState
}

type mutexState struct {
	object
	locked bool
	// visitor: a goroutine outside the execution holds it (visitLock),
	// with the mutex's plain one.
	visitor bool
	// Recording: the lock is checked, a go-deadlock mutex watching the
	// order of locks, if the run checks it (record.Options.LockOrder:
	// checks), and fast, a sync.Mutex, if not. owner is who holds
	// checked: fast keeps none, an atomic store on each Lock and Unlock
	// would slow every critical section (and change how often a racing
	// goroutine gets in between two of them).
	checks  bool
	checked deadlock.Mutex
	fast    sync.Mutex
	owner   atomic.Pointer[record.Thread]
}

func (s *mutexState) lockChecked(t *record.Thread) {
	s.checked.Lock()
	s.owner.Store(t)
}

// tryLock is lock if the mutex is free. go-deadlock would report a
// TryLock of a mutex the goroutine holds as recursive locking, though it
// cannot deadlock: the owner is checked first.
func (s *mutexState) tryLock(t *record.Thread) bool {
	if s.checks {
		if s.owner.Load() == t || !s.checked.TryLock() {
			return false
		}
		s.owner.Store(t)
		return true
	}
	return s.fast.TryLock()
}

func (s *mutexState) unlockChecked() {
	s.owner.Store(nil)
	s.checked.Unlock()
}

// runState returns m's state for t's run, or nil if there is none yet
// (newRecState makes it): recSync's state, the common case inlined into
// Lock and Unlock.
func (m *Mutex) runState(t *record.Thread) *mutexState {
	s := (*mutexState)(atomic.LoadPointer((*unsafe.Pointer)(unsafe.Pointer(&m.st))))
	if s != nil && s.run == t.Run() {
		return s
	}
	return nil
}

// newRecState returns m's state for t's run, creating it (recState).
//
//go:noinline
func (m *Mutex) newRecState(t *record.Thread) *mutexState { return recState(&m.st, t) }

// recInit sets the run's choice of lock (see checks) in the state
// recState makes, before it is published.
func (s *mutexState) recInit(t *record.Thread) { s.checks = t.Run().LockOrder() }

// unlocked is the Waiter of Lock.
type unlocked mutexState

//go:norace
func (w *unlocked) Ready() bool { return !w.locked }

// Shared makes the goroutines waiting for the mutex one group (see
// sched.SharedWaiter).
func (w *unlocked) Shared() {}

// Lock locks m, waiting until it is available.
//
// The lookup of the calling goroutine (lookup's) and the recorded path are
// written out: a recorded Lock costs one call into sim and one into the
// recorder.
func (m *Mutex) Lock() {
	if !gls.Active() {
		m.mu.Lock()
		return
	}
	who, ok := gls.Self().Value()
	if !ok {
		who = gls.Get()
	}
	if t, ok := who.(*record.Thread); ok {
		s := m.runState(t)
		if s == nil {
			s = m.newRecState(t)
		}
		l := s.loc
		r := t.Access(l)
		if s.checks {
			s.lockChecked(t)
		} else {
			s.fast.Lock()
		}
		r.Sync(t, l, sched.ReadWrite, 0)
		return
	}
	if g, ok := who.(*sched.G); ok && (g.Runs() || g.Claim() != nil) {
		m.lockControlled(g)
		return
	}
	m.mu.Lock()
	if !m.visitLock() {
		outside(&m.st, opLock, m)
	}
}

// TryLock tries to lock m and reports whether it succeeded.
func (m *Mutex) TryLock() bool {
	g, t := who()
	if g != nil {
		return m.tryLockControlled(g)
	}
	if t != nil {
		s, l, r := recSync(&m.st, t)
		// A TryLock that fails touches nothing: a replay need not order
		// it (it fails again if the lock is held, or the replay's check of
		// operations and values tells).
		if !s.tryLock(t) {
			t.NoAccess()
			return false
		}
		r.Sync(t, l, sched.ReadWrite, 0)
		return true
	}
	if gls.Active() {
		outside(&m.st, opTryLock, m)
	}
	return m.mu.TryLock()
}

// Unlock unlocks m. Unlocking an unlocked mutex panics. It is written out
// as Lock.
func (m *Mutex) Unlock() {
	if !gls.Active() {
		m.mu.Unlock()
		return
	}
	who, ok := gls.Self().Value()
	if !ok {
		who = gls.Get()
	}
	if t, ok := who.(*record.Thread); ok {
		s := m.runState(t)
		if s == nil {
			s = m.newRecState(t)
		}
		l := s.loc
		r := t.Access(l)
		r.Sync(t, l, sched.Write, 0)
		if s.checks {
			s.unlockChecked()
		} else {
			s.fast.Unlock()
		}
		t.Released()
		return
	}
	if g, ok := who.(*sched.G); ok && (g.Runs() || g.Claim() != nil) {
		m.unlockControlled(g)
		return
	}
	if !m.visitUnlock() {
		outside(&m.st, opUnlock, m)
	}
	m.mu.Unlock()
}

// visitLock is Lock from a goroutine outside the execution that owns m's
// state (see visit), which holds m's plain mutex: it takes the execution's
// side of m too, once free, and the execution's goroutines wait for it
// (a server's handler on a goroutine net/http started, which left the
// execution, locks what the test's goroutines lock). It reports whether
// it did; false: no running execution owns m, or it ended first.
//
//go:norace
func (m *Mutex) visitLock() bool {
	return visit(&m.st, opLock, m, func(s *mutexState, g *sched.G) bool {
		if s.locked {
			return false
		}
		s.locked, s.visitor = true, true
		g.Touch(s.id)
		return true
	})
}

// visitUnlock is Unlock from a goroutine outside the execution, which
// holds m's plain mutex: it frees the execution's side of m if its Lock
// took it (visitLock; the visit's result ordered the flag before this
// read). It reports whether there is nothing to report: true if that Lock
// did not take it (its Lock reported any use from outside), or the unlock
// was done; false if the execution ended first.
//
//go:norace
func (m *Mutex) visitUnlock() bool {
	if s := m.st; s == nil || !s.visitor {
		return true
	}
	return visit(&m.st, opUnlock, m, func(s *mutexState, g *sched.G) bool {
		s.locked, s.visitor = false, false
		g.Touch(s.id)
		return true
	})
}

// The controlled paths. As sync.Mutex tells the race detector, an Unlock
// happens before the Lock that next takes the mutex: the unlocker releases
// its happens-before state on the mutex's state, the locker acquires it.

//go:norace
func (m *Mutex) lockControlled(g *sched.G) {
	s := stateOf(&m.st, g)
	g.Step(opLock, s.id, (*unlocked)(s))
	s.locked = true
	race.Acquire(unsafe.Pointer(s))
}

//go:norace
func (m *Mutex) tryLockControlled(g *sched.G) bool {
	s := stateOf(&m.st, g)
	g.StepReady(opTryLock, s.id)
	if s.locked {
		g.Polled()
		return false
	}
	s.locked = true
	race.Acquire(unsafe.Pointer(s))
	return true
}

//go:norace
func (m *Mutex) unlockControlled(g *sched.G) {
	s := stateOf(&m.st, g)
	g.StepReady(opUnlock, s.id)
	if !s.locked {
		panic("sync: unlock of unlocked mutex")
	}
	race.Release(unsafe.Pointer(s))
	s.locked = false
}
