package sim

import "sync"

// A Mutex is a mutual exclusion lock, like sync.Mutex. Its zero value is
// an unlocked mutex.
type Mutex struct {
	mu sync.Mutex
	st *mutexState
}

type mutexState struct {
	object
	locked bool
}

// unlocked is the Waiter of Lock.
type unlocked mutexState

func (w *unlocked) Ready() bool { return !w.locked }

// Lock locks m, waiting until it is available.
func (m *Mutex) Lock() {
	if g := current(); g != nil {
		s := stateOf(&m.st, g)
		g.Step(opLock, s.id, (*unlocked)(s))
		s.locked = true
		return
	}
	m.mu.Lock()
}

// TryLock tries to lock m and reports whether it succeeded.
func (m *Mutex) TryLock() bool {
	if g := current(); g != nil {
		s := stateOf(&m.st, g)
		g.Step(opTryLock, s.id, nil)
		if s.locked {
			return false
		}
		s.locked = true
		return true
	}
	return m.mu.TryLock()
}

// Unlock unlocks m. Unlocking an unlocked mutex panics.
func (m *Mutex) Unlock() {
	if g := current(); g != nil {
		s := stateOf(&m.st, g)
		g.Step(opUnlock, s.id, nil)
		if !s.locked {
			panic("sync: unlock of unlocked mutex")
		}
		s.locked = false
		return
	}
	m.mu.Unlock()
}
