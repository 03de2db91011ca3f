package sim

import (
	"unsafe"

	"github.com/weftdev/weft/internal/race"
)

// Under the race detector (a -race build), each primitive tells it the
// happens-before edges of the Go primitive it stands for, from its
// controlled path, after the event's Step (the controller hides its own
// handoffs: see package internal/race). The state those paths write is
// the execution's machinery, shared by its goroutines: the functions that
// write it are //go:norace.
//
// A Var is not checked: its accesses are the events the controller
// interleaves, atomic under control, so that a test written with Var
// explores its orderings; plain memory is what the race detector checks.
// Nor does weft repeat the race detector's checks of misuse (a send racing
// a close, WaitGroup.Add racing Wait): weft finds those as interleavings
// that panic or fail.

// The rendezvous of an unbuffered channel synchronizes both ways, as the Go
// runtime tells the race detector: the send happens before the completion
// of the receive, and the receive before the completion of the send. The
// side that arrives first and waits leaves its happens-before state in its
// waiter (waitArrive); the partner that completes it takes that state and
// leaves its own (waitPair); the waiter takes it when it resumes
// (waitCompleted).

func waitArrive[T any](w *waiter[T])    { race.Release(unsafe.Pointer(w)) }
func waitCompleted[T any](w *waiter[T]) { race.Acquire(unsafe.Pointer(w)) }

func waitPair[T any](w *waiter[T]) {
	race.Acquire(unsafe.Pointer(w))
	race.Release(unsafe.Pointer(w))
}

// slotOp is a send into a buffered channel's next slot, or a receive from
// it: *n counts the channel's sends or receives. The k-th send happens
// before the completion of the k-th receive, and the k-th receive before
// the completion of the (k+C)-th send (see race.Slot). Slots are allocated
// as they are first used, one by one, for the race detector keeps their
// state by address.
//
//go:norace
func (s *chanState[T]) slotOp(n *uint64) {
	if !race.Enabled {
		return
	}
	k := int(*n % uint64(s.cap))
	*n++
	if k == len(s.slots) {
		s.slots = append(s.slots, new(race.Slot))
	}
	s.slots[k].ReleaseAcquire()
}
