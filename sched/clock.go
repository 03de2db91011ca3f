package sched

import (
	"container/heap"
	"time"
)

// The virtual clock. Time moves only when no goroutine can run and a timer
// is pending: it jumps to the earliest deadline, and the timers due then
// fire in the order they were set. A test that sleeps an hour takes no time.

// Now returns the execution's virtual time.
func (g *G) Now() time.Time {
	return Epoch.Add(time.Duration(g.c.now))
}

// A Timer is a pending event of the virtual clock.
type Timer struct {
	c     *Controller
	when  int64
	seq   uint64
	fire  func()
	index int // in the heap; -1 when not pending
}

// NewTimer sets a timer that calls fire, d from now. fire runs on whichever
// controlled goroutine advances the clock, as part of the scheduler's work:
// it may change the state of primitives and start goroutines (with G.Spawn
// on the timer's owner) but must not call Step. A nil fire only wakes the
// clock: a sleeper steps with the timer as its Waiter.
//
//go:norace
func (g *G) NewTimer(d time.Duration, fire func()) *Timer {
	c := g.c
	c.tseq++
	t := &Timer{c: c, when: c.now + int64(max(d, 0)), seq: c.tseq, fire: fire}
	heap.Push(&c.timers, t)
	return t
}

// Stop cancels the timer; it reports whether the timer was pending.
//
//go:norace
func (t *Timer) Stop() bool {
	if t.index < 0 {
		return false
	}
	heap.Remove(&t.c.timers, t.index)
	return true
}

// Reset stops the timer and sets it again to fire d from now; it reports
// whether the timer was pending.
//
//go:norace
func (t *Timer) Reset(d time.Duration) bool {
	was := t.Stop()
	c := t.c
	c.tseq++
	t.when, t.seq = c.now+int64(max(d, 0)), c.tseq
	heap.Push(&c.timers, t)
	return was
}

// When returns the virtual time at which the timer fires.
func (t *Timer) When() time.Time { return Epoch.Add(time.Duration(t.when)) }

// Ready reports whether the timer's time has come: a sleeping goroutine
// waits on its timer.
func (t *Timer) Ready() bool { return t.c.now >= t.when }

// Spawn starts f as a new controlled goroutine, a child of g, without an
// event of g: for timers that fire (time.AfterFunc). Everything else uses Go.
//
//go:norace
func (g *G) Spawn(f func()) { g.c.spawn(g, f) }

// advance moves the clock to the earliest pending timer and fires every
// timer due then. It reports false if no timer is pending.
//
//go:norace
func (c *Controller) advance() bool {
	if len(c.timers) == 0 {
		return false
	}
	c.now = max(c.now, c.timers[0].when)
	for len(c.timers) > 0 && c.timers[0].when <= c.now {
		t := heap.Pop(&c.timers).(*Timer)
		c.mix(uint64(t.seq) | 1<<62)
		if t.fire != nil {
			t.fire()
		}
	}
	return true
}

type timerHeap []*Timer

func (h timerHeap) Len() int { return len(h) }
func (h timerHeap) Less(i, j int) bool {
	if h[i].when != h[j].when {
		return h[i].when < h[j].when
	}
	return h[i].seq < h[j].seq
}

//go:norace
func (h timerHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}

//go:norace
func (h *timerHeap) Push(x any) {
	t := x.(*Timer)
	t.index = len(*h)
	*h = append(*h, t)
}

//go:norace
func (h *timerHeap) Pop() any {
	old := *h
	t := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	t.index = -1
	return t
}
