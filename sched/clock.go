package sched

import "time"

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
	g.c.clockRead = true
	return g.c.epoch.Add(time.Duration(g.c.now))
}

// A Timer is a pending event of the virtual clock.
type Timer struct {
	c       *Controller
	exec    uint64 // c's execution when set: a timer of an earlier one is inert (see reuse.go)
	when    int64
	seq     uint64 // its place among timers of equal deadline; a new one at every Reset
	fire    func()
	pending bool // in the queue, to fire
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
// fired: a sleeper steps with the timer as its Waiter (see G.Sleep).
//
//go:norace
func (g *G) NewTimer(d time.Duration, fire func()) *Timer {
	t := &Timer{fire: fire}
	g.c.set(t, d)
	return t
}

// Sleep is a scheduling point at which g waits until d has passed: a
// timer's event, as g.Step(op, 0, g.NewTimer(d, nil)) is, on a timer of
// g's own that costs no allocation (a goroutine sleeps on one timer at a
// time).
//
//go:norace
func (g *G) Sleep(op *Op, d time.Duration) {
	t := &g.sleep
	if t.pending { // cannot be: it fired before g went on
		t = new(Timer)
	} else {
		*t = Timer{}
	}
	g.c.set(t, d)
	g.Step(op, 0, t)
}

// set sets timer t to fire d from now.
//
//go:norace
func (c *Controller) set(t *Timer, d time.Duration) {
	c.tseq++
	t.c, t.exec, t.when, t.seq, t.fired = c, c.seq, c.now+int64(max(d, 0)), c.tseq, false
	if c.trace != nil {
		t.site = CallerSite(2)
	}
	c.timers.push(t)
}

// Stop cancels the timer; it reports whether the timer was pending.
//
//go:norace
func (t *Timer) Stop() bool {
	if !t.pending || t.exec != t.c.seq {
		return false
	}
	t.c.timers.drop(t)
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
	c.timers.push(t)
	return was
}

// Stale reports whether t was set in another execution than g's (an
// earlier one: a timer kept in a package-level sync.Pool, as
// hashicorp/yamux keeps its write timers): there it is inert, and Stop and
// Reset do nothing.
//
//go:norace
func (t *Timer) Stale(g *G) bool { return t.c != g.c || t.exec != g.c.seq }

// sleeping returns the goroutine that sleeps on the timer, if one still
// does: its wait is this timer, registered at its current event.
//
//go:norace
func (t *Timer) sleeping() *G {
	if h := t.sleeper; h != nil && h.wgen == t.gen && h.wait == Waiter(t) {
		return h
	}
	return nil
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
	if c.timers.empty() {
		return 0, false // at most events: no call
	}
	t := c.timers.first()
	if t == nil {
		return 0, false
	}
	return time.Duration(t.when - c.now), true
}

// fireNext fires the earliest pending timer, moving the clock to its
// deadline if that is still ahead. Firing is a change of the execution's
// state: pollers look again.
//
//go:norace
func (c *Controller) fireNext() {
	t := c.timers.pop()
	c.now = max(c.now, t.when)
	c.dueSince = 0
	c.firedAt = c.steps
	if c.rootDone {
		c.afterFires++
	}
	c.mix(uint64(t.seq) | 1<<62)
	t.fired = true
	if c.trace != nil {
		c.record(tracePoint{g: Clock, op: opFire, site: t.site})
	}
	c.changed()
	c.goTick()
	if h := t.sleeping(); h != nil {
		c.recheck(h)
	}
	if t.fire != nil {
		t.fire()
	}
}
