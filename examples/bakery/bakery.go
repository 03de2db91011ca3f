// Package bakery is a bug of depth 3: Lamport's bakery lock without its
// "choosing" flags. A goroutine can read the tickets, be preempted before it
// publishes its own, see the other one enter the critical section, and then
// enter too, because its ticket ties and wins on the goroutine number. Two
// preemptions at the right places (three ordering constraints) are needed,
// which random interleaving rarely hits and PCT at depth 3 finds.
package bakery

import (
	"github.com/weftdev/weft/sim"
	weft "github.com/weftdev/weft/testing"
)

// Lock is the bakery lock for two goroutines, 0 and 1.
type Lock struct {
	number   [2]sim.Var[int]
	choosing [2]sim.Var[bool]
	noFlags  bool // the bug: skip the choosing flags
}

// NewRacyLock returns the lock without the choosing flags: the bug.
func NewRacyLock() *Lock { return &Lock{noFlags: true} }

// NewLock returns Lamport's algorithm as published: the fix.
func NewLock() *Lock { return &Lock{} }

// Acquire takes the lock for goroutine i.
func (l *Lock) Acquire(i int) {
	j := 1 - i
	if !l.noFlags {
		l.choosing[i].Store(true)
	}
	ticket := 1 + max(l.number[0].Load(), l.number[1].Load())
	l.number[i].Store(ticket)
	if !l.noFlags {
		l.choosing[i].Store(false)
		for l.choosing[j].Load() {
			sim.Yield()
		}
	}
	for {
		other := l.number[j].Load()
		if other == 0 || other > ticket || (other == ticket && j > i) {
			return
		}
		sim.Yield()
	}
}

// Release releases the lock held by goroutine i.
func (l *Lock) Release(i int) { l.number[i].Store(0) }

// Buggy is the test body that finds the bug.
func Buggy(t *weft.T) { mutualExclusion(t, NewRacyLock()) }

// Fixed is the same test of the fixed code.
func Fixed(t *weft.T) { mutualExclusion(t, NewLock()) }

func mutualExclusion(t *weft.T, l *Lock) {
	var inside sim.Int64
	var wg sim.WaitGroup
	for i := range 2 {
		wg.Go(func() {
			l.Acquire(i)
			if n := inside.Add(1); n != 1 {
				t.Errorf("%d goroutines in the critical section", n)
			}
			inside.Add(-1)
			l.Release(i)
		})
	}
	wg.Wait()
}
