package sched

import (
	"container/heap"
	"time"
)

// The virtual clock. Time passes as it can in Go:
//
//   - Every event takes Tick of virtual time, so time.Now increases
//     between events, and a long computation lets timers come due.
//   - A timer whose deadline has come is due. It fires at a decision: by
//     default at the next one, before any goroutine continues; a strategy
//     may run goroutines first (Decision.Timer), and fairness makes it
//     fire within FairBound events.
//   - A strategy may also fire the earliest timer before its deadline,
//     while goroutines could still run, by returning Clock: the clock jumps
//     to the deadline, as if the goroutines had been slow to run. How far
//     ahead it looks is the strategy's business (explore's lag).
//   - When no goroutine can run, the clock jumps to the earliest deadline.
//
// A sleep is a timer its goroutine waits on. Every firing is an event of
// the schedule, recorded when it departs from the default, so a saved
// schedule replays "the timeout first" as faithfully as "the work first".

// Tick is the virtual time an event takes: time.Now read at two events is
// at least Tick apart. It is close to what a synchronization operation
// costs on a real machine, so that work of ordinary size stays short of
// ordinary timeouts.
const Tick = 20 * time.Nanosecond

// Clock stands for the virtual clock in a Decision: a strategy returns it
// to fire the earliest pending timer now, before any goroutine runs.
var Clock = &G{id: "clock", idx: -1}

// Now returns the execution's virtual time.
//
//go:norace
func (g *G) Now() time.Time {
	return g.c.epoch.Add(time.Duration(g.c.now))
}

// A Timer is a pending event of the virtual clock.
type Timer struct {
	c       *Controller
	exec    uint64 // c's execution when set: a timer of an earlier one is inert (see reuse.go)
	when    int64
	seq     uint64
	fire    func()
	index   int  // in the heap; -1 when not pending
	fired   bool // fired since it was last set
	sleeper *G   // the goroutine sleeping on it, if any
	gen     uint32
	site    string // where it was set, when tracing
}

// NewTimer sets a timer that calls fire, d from now. fire runs on whichever
// controlled goroutine holds the baton when the timer fires, as part of the
// scheduler's work: it may change the state of primitives (telling the
// controller with G.Touch) and start goroutines (with G.Spawn on the
// timer's owner) but must not call Step. A nil fire only marks the timer
// fired: a sleeper steps with the timer as its Waiter.
//
//go:norace
func (g *G) NewTimer(d time.Duration, fire func()) *Timer {
	c := g.c
	c.tseq++
	t := &Timer{c: c, exec: c.seq, when: c.now + int64(max(d, 0)), seq: c.tseq, fire: fire}
	if c.trace != nil {
		t.site = CallerSite(1)
	}
	heap.Push(&c.timers, t)
	return t
}

// Stop cancels the timer; it reports whether the timer was pending.
//
//go:norace
func (t *Timer) Stop() bool {
	if t.index < 0 || t.exec != t.c.seq {
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
	if t.exec != t.c.seq {
		return false // set in an earlier execution, over
	}
	was := t.Stop()
	c := t.c
	c.tseq++
	t.when, t.seq, t.fired = c.now+int64(max(d, 0)), c.tseq, false
	heap.Push(&c.timers, t)
	return was
}

// When returns the virtual time at which the timer fires.
//
//go:norace
func (t *Timer) When() time.Time { return t.c.epoch.Add(time.Duration(t.when)) }

// Ready reports whether the timer has fired: a sleeping goroutine waits on
// its timer.
//
//go:norace
func (t *Timer) Ready() bool { return t.fired }

// timerIn returns the virtual time until the earliest pending timer's
// deadline (zero or less when it is due), and whether a timer is pending.
//
//go:norace
func (c *Controller) timerIn() (time.Duration, bool) {
	if len(c.timers) == 0 {
		return 0, false
	}
	return time.Duration(c.timers[0].when - c.now), true
}

// fireNext fires the earliest pending timer, moving the clock to its
// deadline if that is still ahead. Firing is a change of the execution's
// state: pollers look again.
//
//go:norace
func (c *Controller) fireNext() {
	t := heap.Pop(&c.timers).(*Timer)
	c.now = max(c.now, t.when)
	c.dueSince = 0
	if c.rootDone {
		c.afterFires++
	}
	c.mix(uint64(t.seq) | 1<<62)
	t.fired = true
	if c.trace != nil {
		c.record(tracePoint{g: Clock, op: opFire, site: t.site})
	}
	c.changed()
	if h := t.sleeper; h != nil && h.wgen == t.gen && h.wait == Waiter(t) {
		c.recheck(h)
	}
	if t.fire != nil {
		t.fire()
	}
}

type timerHeap []*Timer

//go:norace
func (h timerHeap) Len() int { return len(h) }

//go:norace
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
