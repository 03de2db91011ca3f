package sched

import "time"

// A Decision is a scheduling point at which the strategy chooses what runs
// next: one of the enabled goroutines, or the Clock when a timer is
// pending. It is only valid during the call to Strategy.Next.
type Decision struct {
	// Current is the goroutine at the scheduling point: it reached an event
	// (Current.Events() counts it), blocked, or exited.
	Current *G
	// Default is what the default policy runs: the Clock if a timer is due;
	// else Current if it can continue; else the next enabled goroutine
	// after it in creation order.
	Default *G
	// Yield reports that Current yields or polls (sim.Yield, G.Poll): it
	// asks to let others run.
	Yield bool
	// Step counts the events of the execution so far, this one included.
	Step int
	// Index counts the decisions of the execution so far, this one
	// included.
	Index int
	// Sub counts the decisions made earlier at the same event: after the
	// clock fires, the strategy decides again before anything runs.
	Sub int
	// Timer reports that the strategy may return Clock to fire the
	// earliest pending timer now.
	Timer bool
	// TimerIn is the virtual time until the earliest pending timer is due:
	// zero or less if it is due now. Firing it earlier moves the clock to
	// its deadline while goroutines that could run have not.
	TimerIn time.Duration

	c *Controller
}

// The candidates of a decision are the enabled goroutines (their pending
// operation can proceed) but for stale pollers (see G.Polled): the
// goroutines worth running. There is at least one. Len, At and Highest
// cost O(log n) in the number of goroutines.

// Len returns the number of candidates.
//
//go:norace
func (d *Decision) Len() int { return d.c.cands.len() }

// At returns the i-th candidate in creation order, from 0.
//
//go:norace
func (d *Decision) At(i int) *G { return d.c.cands.at(i) }

// Highest returns the candidate of highest priority (see G.SetPriority),
// the oldest among equals.
//
//go:norace
func (d *Decision) Highest() *G { return d.c.cands.highest() }

// CanRun reports whether g is enabled: a candidate, or a stale poller. A
// strategy may return any goroutine that can run; those that explore
// return candidates, those that follow a recorded order may need the
// others.
//
//go:norace
func (d *Decision) CanRun(g *G) bool { return g != Clock && g.c == d.c && g.enabled() && !g.done }

// Enabled returns every goroutine that can run, stale pollers included,
// in creation order. It allocates and costs time linear in the number of
// goroutines: strategies that can, use Len and At.
//
//go:norace
func (d *Decision) Enabled() []*G {
	var out []*G
	for _, g := range d.c.all {
		if d.CanRun(g) {
			out = append(out, g)
		}
	}
	return out
}

// Starving returns the candidate that has waited the longest to run if it
// has waited more than FairBound events, or Clock if a timer has been due
// that long; nil otherwise. Exploring strategies run it, so that they are
// fair (see FairBound).
//
//go:norace
func (d *Decision) Starving() *G { return d.c.starving() }

// CanContinue reports whether Current is enabled and did not yield: running
// any other goroutine, or firing a timer that is not due, preempts it.
//
//go:norace
func (d *Decision) CanContinue() bool {
	return !d.Yield && !d.Current.done && d.Current.enabled()
}

// SetPriority sets the priority by which Decision.Highest orders the
// goroutine: strategies that run the highest-priority goroutine (PCT) keep
// their priorities here, so that finding it costs O(log n).
//
//go:norace
func (g *G) SetPriority(p int64) {
	if g.prio == p {
		return
	}
	g.prio = p
	g.c.rekey(g)
}

// Priority returns the goroutine's priority (SetPriority).
//
//go:norace
func (g *G) Priority() int64 { return g.prio }

// FairBound is how long, in events, a candidate may wait to run, or a timer
// stay due, before an exploring strategy must run it (Decision.Starving).
// So a program that ends under every fair scheduler ends under every
// exploring strategy (a loop whose select always has a ready case cannot
// starve the sender of its stop signal), while executions in which nothing
// waits that long, which is all of most tests, are left exactly to the
// strategy: PCT keeps its guarantee for bugs of bounded depth, as fair PCT
// does. The choices it forces are recorded as any other, so replays need
// no rule of their own.
const FairBound = 4096

// starving returns the candidate that has waited the longest to run (since
// it last ran or became a candidate) if it has waited more than FairBound
// events, or Clock if a timer has been due that long; nil otherwise.
//
//go:norace
func (c *Controller) starving() *G {
	if c.dueSince > 0 && c.steps-c.dueSince > FairBound {
		return Clock
	}
	if c.calmGen == c.cands.gen && c.steps <= c.calmUntil {
		return nil
	}
	// By index and key: the goroutine that waited longest is most often
	// not at the decision, nor starving, and its record stays unread.
	old, since := c.cands.oldest()
	cur := c.cur.Load()
	if old >= 0 && cur != nil && int(old) == cur.idx {
		c.served(cur) // the goroutine at the decision has been running
		old, since = c.cands.oldest()
	}
	if old >= 0 && c.steps-since > FairBound {
		return c.all[old]
	}
	if old >= 0 && (cur == nil || int(old) != cur.idx) {
		// Until the candidates change, the longest wait is old's, and
		// the goroutine at the decision is not served again: the same
		// question gets the same answer up to step since+FairBound.
		c.calmGen, c.calmUntil, c.calmOld = c.cands.gen, since+FairBound, old
	}
	return nil
}

// maxIdleFires bounds the timers that fire in a row while no goroutine can
// run and none becomes able to: a ticker that nobody reads would otherwise
// keep an execution whose goroutines are all blocked for good ticking
// forever. Past it, the execution is stalled.
const maxIdleFires = 1 << 20

// decide picks what runs after g's current event (or exit): a goroutine,
// after firing the timers the strategy or the default policy fire first.
// It returns nil when nothing can run any more: the failure is recorded
// and the execution is aborting.
//
//go:norace
func (c *Controller) decide(g *G) *G {
	idle := 0
	for sub := 0; ; {
		if c.abandoned.Load() {
			// The watchdog gave up on the execution while g waited in
			// real time (for visits, for the world outside): its
			// goroutines are being drained, and g decides nothing.
			return nil
		}
		c.backs()
		c.flush()
		if c.opts.Verify {
			c.verify()
		}
		in, timer := c.timerIn()
		switch {
		case !timer || in > 0:
			c.dueSince = 0
		case c.dueSince == 0:
			c.dueSince = c.steps
		}
		n := c.cands.len()
		if n == 0 {
			next, again := c.noCandidate(g, timer, in, &idle)
			if again {
				continue
			}
			return next
		}
		def := c.defaultNext(g, timer && in <= 0)
		// After the clock fired at this event, only a due timer may fire
		// again before something runs: a clock that could jump ahead of
		// every goroutine forever would starve them all.
		offer := timer && (in <= 0 || sub == 0 && (c.hz == nil || in <= c.horizon()))
		var next *G
		switch {
		case c.overran:
			next = c.unexplored(g, def)
		case n == 1 && !offer && len(c.stale) == 0:
			next = def
		case c.decisions+1 < c.steady && !offer && sub == 0 && !g.yield && c.starving() == nil:
			next = c.highest(g, def)
		default:
			next = c.consult(g, def, sub, offer, in)
		}
		if next == Clock {
			if c.rootDone && c.afterFires >= AfterFires {
				c.keepRunning()
				return nil
			}
			c.fireNext()
			sub++
			continue
		}
		c.mix(uint64(next.idx))
		c.ran(next)
		return next
	}
}

// noCandidate is decide's part when no goroutine can run. It reports again
// when something changed and decide looks again: a visit served, a
// goroutine back from the network, a round for the pollers, a timer fired.
// Otherwise it returns the goroutine given back its baton to run, or nil
// when the execution ends: goroutines kept running after the test, a
// timeout, a deadlock or a leak.
//
//go:norace
func (c *Controller) noCandidate(g *G, timer bool, in time.Duration, idle *int) (next *G, again bool) {
	switch {
	case c.serveVisits(g) || c.back.out > 0 && c.awaitBack(timer, in):
		return nil, true
	case timer && c.rootDone && c.afterFires >= AfterFires:
		c.keepRunning()
		return nil, false
	case timer && c.roundBeforeTimer():
		return nil, true
	case timer && c.pastLimit():
		// A poller that reads the clock (a loop until a second has
		// passed, gocron's) gets the stall rounds that move it on, as
		// with no timer pending, before the time limit.
		if c.waitOutside() || c.clockRead && c.unstall() {
			return nil, true
		}
		c.timedOut()
		return nil, false
	case timer && c.awaitVisitBefore(g, in):
		return nil, true
	case timer && *idle < maxIdleFires:
		c.fireNext() // nothing can run: the clock moves on
		*idle++
		return nil, true
	case c.unstall() || c.awaitVisit(g) || c.awayWait():
		return nil, true
	}
	if h := c.giveBack(); h != nil {
		return h, false
	}
	if !c.aborting && !c.abandoned.Load() {
		c.stalled()
	}
	return nil, false
}

// runsOn reports whether the decision after g's event is sure to let g
// run on, as most are, and takes it if so, as decide would: the loop of
// decide would find nothing to flush, no timer, g a fresh candidate that
// does not yield, and either g the only candidate, or a Prioritizer's
// steady decision (highest) with no candidate starving and g highest, as
// the answers kept for the candidates' generation (see starving and
// candidates.highest) already say. It costs a few loads where the loop
// costs a dozen calls; it decides nothing the loop would decide otherwise
// (TestExecutionsAreStable). stepOn has it inlined: a change here is a
// change there.
//
//go:norace
func (c *Controller) runsOn(g *G) bool {
	if len(c.woken)+len(c.dirty)+len(c.unowned)+c.back.out > 0 || c.opts.Verify || c.overran ||
		g.yield || g.grp != nil || !g.fresh || !c.timers.empty() {
		return false
	}
	if (c.cands.len() != 1 || len(c.stale) != 0) && !c.steadyOn(g) {
		return false
	}
	c.dueSince = 0
	c.mix(uint64(g.idx))
	c.ran(g)
	return true
}

// steadyOn reports whether a Prioritizer's steady decision (highest) lets
// g run on, as the answers kept for the candidates' generation already say
// (no candidate starving, g highest), and counts the decision if so.
//
//go:norace
func (c *Controller) steadyOn(g *G) bool {
	s := &c.cands
	if c.decisions+1 < c.steady && c.calmGen == s.gen && c.steps <= c.calmUntil && s.hiGen == s.gen && s.hi == g {
		c.decisions++
		return true
	}
	return false
}

// unexploredSlice is how many events in a row a goroutine runs past the
// budget before the next candidate runs, as Go's scheduler preempts a
// goroutine that has run 10 ms: each goroutine that can run gets its share.
// Without slices, a goroutine ran until another starved (FairBound), and
// the starving one ran one event before the first ran on: four goroutines
// that loop until told to stop left the one doing the work one event in
// FairBound (otter's TestMap_UnlinksEmptyOverflowBucket, 0.4 s under go
// test, was a runaway).
const unexploredSlice = 256

// unexplored is the policy of an execution past its budget (see overrun):
// the default policy in slices of unexploredSlice events, g's current one
// begun at event sliceFrom, fair as the exploring strategies are, on a
// clock that no longer waits for the work. It depends on nothing but the
// execution, so a replay past the budget makes the same decisions without
// a schedule of them.
//
// Within the budget, time passes at Tick an event; past it, a sleep that
// is the earliest pending timer ends once FairBound events have run since
// the clock last fired, due or not. A test that sleeps a hundred times
// while other goroutines loop (karlseguin/ccache's Test_ConcurrentStop:
// rounds of three goroutines that loop forever and a 10 ms sleep) needs
// half a million events a sleep at Tick each, fifty million in all: far
// more than the budgets allow, so it was a runaway where go test takes a
// second. Ending a sleep early is what a slow machine does, and what the
// strategies' lag does; other timers (a guard's time.After, a ticker) keep
// their deadlines, and a loop that no timer ends still runs out of
// budgets and is a runaway.
//
//go:norace
func (c *Controller) unexplored(g, def *G) *G {
	next := def
	switch s := c.starving(); {
	case s != nil:
		next = s
	case c.steps-c.firedAt > FairBound && c.sleepFirst():
		return Clock
	case def == g && c.steps-c.sliceFrom >= unexploredSlice:
		if r := c.cands.rank(g.idx + 1); r < c.cands.len() {
			next = c.cands.at(r)
		} else {
			next = c.cands.at(0)
		}
	}
	if next != g {
		c.sliceFrom = c.steps
	}
	return next
}

// sleepFirst reports whether the earliest pending timer is a goroutine's
// sleep.
//
//go:norace
func (c *Controller) sleepFirst() bool {
	if c.timers.empty() {
		return false
	}
	t := c.timers.first()
	return t != nil && t.sleeping() != nil
}

// consult asks the strategy, and records its choice if it departs from
// def.
//
//go:norace
func (c *Controller) consult(g, def *G, sub int, timer bool, in time.Duration) *G {
	c.decisions++
	// Reused: a Decision passed to an interface would escape. Set field by
	// field: copying a whole struct with pointers in it costs a bulk write
	// barrier while the collector runs.
	d := &c.decision
	d.Current, d.Default, d.c = g, def, c
	d.Yield, d.Step, d.Index, d.Sub, d.Timer, d.TimerIn = g.yield, c.steps, c.decisions, sub, timer, in
	next := c.next(d)
	if c.prio != nil {
		c.steady = c.prio.Steady()
	}
	switch {
	case next == Clock:
		if !timer {
			panic("weft: strategy fired the clock with no timer pending")
		}
	case next == nil || !d.CanRun(next):
		panic("weft: strategy chose a goroutine that is not enabled")
	}
	if next != def {
		c.chose(g, next, sub, d.CanContinue() && (next == Clock && in > 0 || next != Clock && next != g))
	}
	return next
}

// highest is the decision of a Prioritizer that Next need not be asked:
// the candidate of highest priority, recorded as consult records it.
//
//go:norace
func (c *Controller) highest(g, def *G) *G {
	c.decisions++
	next := c.cands.highest()
	if next != def {
		c.chose(g, next, 0, !g.done && g.enabled() && next != g)
	}
	return next
}

// chose records the choice of next, which departs from the default
// policy, at g's event: preempt says it preempts g.
//
//go:norace
func (c *Controller) chose(g, next *G, sub int, preempt bool) {
	op := g.op
	if g.done {
		op = opExit
	}
	to := int32(-2) // the clock
	if next != Clock {
		to = int32(next.idx)
	}
	c.choices.add(choice{g: int32(g.idx), n: int32(g.n), sub: int32(sub), kind: RunChoice, op: op.id, next: to, preempt: preempt})
}

// defaultNext is the default policy: a due timer fires; otherwise g
// continues if it can; otherwise the first enabled goroutine after it in
// creation order runs.
//
//go:norace
func (c *Controller) defaultNext(g *G, due bool) *G {
	if due {
		return Clock
	}
	if !g.yield && !g.done && g.isFresh() {
		return g
	}
	if r := c.cands.rank(g.idx + 1); r < c.cands.len() {
		return c.cands.at(r)
	}
	return c.cands.at(0)
}
