package race

import "unsafe"

// A Slot is the happens-before state of one slot of a buffered channel,
// kept as the Go runtime keeps it for a real channel: a send into the slot
// and a receive from it each acquire what the previous operation on the
// slot released, and leave there what their goroutine had before (TSan's
// release-acquire). So the k-th receive happens before the completion of
// the (k+C)-th send of a channel of capacity C, and the k-th send before the
// completion of the k-th receive, and nothing more: two goroutines holding
// slots of a channel used as a semaphore are not ordered with each other.
//
// The runtime's API has no release-acquire; a Slot emulates it with two
// addresses, releasing into the one that is not current before acquiring
// the current one. Its zero value is ready to use.
type Slot struct {
	clock [2]byte
	cur   uint8
}

// ReleaseAcquire is a send into the slot, or a receive from it.
//
//go:norace
func (s *Slot) ReleaseAcquire() {
	if !Enabled {
		return
	}
	next := 1 - s.cur
	Release(unsafe.Pointer(&s.clock[next]))
	Acquire(unsafe.Pointer(&s.clock[s.cur]))
	s.cur = next
}
