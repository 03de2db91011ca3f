package sched

import (
	"fmt"
	"time"
)

// Enabledness, kept up to date incrementally. A goroutine is a candidate of
// the next decision when its pending operation can proceed (its Waiter is
// nil or ready) and it is not a stale poller. Rather than ask every live
// goroutine at every decision, the controller registers each waiting
// goroutine with the objects its Waiter depends on (the operation's
// object, the channels of a select, a sleeper's timer) and asks again only
// the goroutines registered with an object that changed: the object of the
// operation the running goroutine just performed, and the objects a
// primitive names with G.Touch. A decision thus costs the same with ten
// goroutines or a hundred thousand.

// A MultiWaiter is a Waiter that names the objects it depends on, as a
// select on several buffered channels does: the controller asks it again
// whenever one of them changes. It may name none: then the goroutines that
// can make it ready wake its goroutine by name (G.Recheck), as the partner
// that completes a send or receive on an unbuffered channel does, so that
// a hundred thousand receivers parked on one channel cost nothing to the
// operations of the others.
type MultiWaiter interface {
	Waiter
	Objects() []uint32
}

// Recheck tells the controller that g's Waiter may be ready now: for a
// MultiWaiter that names no object. It may be called from any goroutine of
// the execution, during its operation; g is asked again before the next
// decision.
//
//go:norace
func (g *G) Recheck() { g.c.woken = append(g.c.woken, g) }

// watch registers goroutine g, for its wait of generation gen, with an
// object.
type watch struct {
	g   *G
	gen uint32
}

// valid reports whether the registration still stands: g waits, in the
// same wait.
//
//go:norace
func (w watch) valid() bool { return !w.g.done && w.g.wgen == w.gen && w.g.wait != nil }

// Touch tells the controller that the state of object obj changed outside
// the operation of the current event: a select that completed one of its
// cases, a timer that delivered on its channel. The goroutines waiting on
// obj are asked again before the next decision.
//
//go:norace
func (g *G) Touch(obj uint32) {
	if obj != 0 {
		g.c.dirty = append(g.c.dirty, obj)
		g.c.setValue(obj, 0, false)
	}
}

// await registers g's pending Waiter, not nil, and makes g a candidate if
// it is ready. Called at g's event, with g.wait set and g.wgen advanced.
//
//go:norace
func (c *Controller) await(g *G) {
	w := g.wait
	switch w := w.(type) {
	case *Timer:
		w.sleeper, w.gen = g, g.wgen
	case never:
	case MultiWaiter:
		for _, obj := range w.Objects() {
			c.register(obj, g)
		}
	default:
		switch {
		case g.obj == 0:
			c.unowned = append(c.unowned, watch{g, g.wgen})
		case c.join(g, w):
			return
		default:
			c.register(g.obj, g)
		}
	}
	c.setCand(g, w.Ready())
}

// groupFrom is how many goroutines register with an object one by one
// before those that wait on it with a SharedWaiter form a group: a few
// waiters cost little to ask one by one, and a group costs more to join.
const groupFrom = 4

// groupAlways is how many goroutines may register with an object one by
// one, beyond which even a goroutine whose Waiter is ready joins the group.
const groupAlways = 2 * groupFrom

// join makes waiting goroutine g a member of the group of its object and
// Waiter, forming it if enough goroutines wait on the object, and reports
// whether it did.
//
//go:norace
func (c *Controller) join(g *G, w Waiter) bool {
	if _, ok := w.(SharedWaiter); !ok || g.stale || c.opts.ungrouped {
		return false
	}
	obj := g.obj
	var gr *group
	if int(obj) < len(c.grouped) {
		for _, h := range c.grouped[obj] {
			if h.w == w {
				gr = h
				break
			}
		}
	}
	if int(obj) >= len(c.watchers) || len(c.watchers[obj]) < groupFrom && gr == nil {
		return false
	}
	if len(c.watchers[obj]) < groupAlways && w.Ready() {
		// It will likely run at once (a Lock of a free mutex): joining
		// and leaving would cost more than being asked again, while the
		// goroutines asked one by one are few.
		return false
	}
	if gr == nil {
		gr = c.form(obj, w)
	}
	c.enter(gr, g)
	return true
}

// form makes the group of the goroutines waiting on obj with w, with those
// registered with obj one by one that wait with w as its first members.
//
//go:norace
func (c *Controller) form(obj uint32, w Waiter) *group {
	gr := c.cands.newGroup(obj, w)
	for int(obj) >= len(c.grouped) {
		c.grouped = append(c.grouped, nil)
	}
	c.grouped[obj] = append(c.grouped[obj], gr)
	c.flip(gr, w.Ready())
	for _, x := range c.watchers[obj] {
		if h := x.g; x.valid() && h.wait == w && !h.stale && h.grp == nil {
			h.wgen++ // its registration is void: the group is asked
			c.enter(gr, h)
		}
	}
	return gr
}

// enter makes waiting goroutine g a member of group gr.
//
//go:norace
func (c *Controller) enter(gr *group, g *G) {
	c.setCand(g, false) // out of the tree: its enabledness is the group's
	c.flip(gr, gr.w.Ready())
	g.grp = gr
	switch {
	case g.overdue: // enabled before in this wait: it waits since then
	case gr.ready:
		g.since, g.overdue = c.steps, true
	default:
		gr.pending = append(gr.pending, g)
	}
	c.cands.join(gr, g)
}

// ungroup takes member g out of its group; it stays enabled as the group
// is, as a candidate of its own, if enabled.
//
//go:norace
func (c *Controller) ungroup(g *G, enabled bool) {
	gr := g.grp
	c.cands.leave(gr, g)
	g.grp = nil
	g.cand, g.fresh = false, false
	if enabled {
		c.setCand(g, gr.ready)
	}
}

// flip records whether group gr's Waiter is ready. The members enabled
// for the first time in their wait start waiting now (see setFresh).
//
//go:norace
func (c *Controller) flip(gr *group, ready bool) {
	if gr.ready == ready {
		return
	}
	if ready {
		for _, h := range gr.pending {
			if h.grp == gr && !h.overdue {
				h.since, h.overdue = c.steps, true
				c.cands.updateMember(gr, h)
			}
		}
		clear(gr.pending)
		gr.pending = gr.pending[:0]
	}
	c.cands.setReady(gr, ready)
}

// flushGroups asks again the groups of waiters on obj, which changed,
// forgetting those without members.
//
//go:norace
func (c *Controller) flushGroups(obj uint32) {
	gs := c.grouped[obj][:0]
	for _, gr := range c.grouped[obj] {
		if gr.n == 0 {
			c.cands.dropGroup(gr)
			continue
		}
		c.flip(gr, gr.w.Ready())
		gs = append(gs, gr)
	}
	clear(c.grouped[obj][len(gs):])
	c.grouped[obj] = gs
}

// enabled reports whether g's pending operation can proceed.
//
//go:norace
func (g *G) enabled() bool {
	if g.grp != nil {
		return g.grp.ready
	}
	return g.cand
}

// isFresh reports whether g is a candidate of decisions.
//
//go:norace
func (g *G) isFresh() bool {
	if g.grp != nil {
		return g.grp.ready
	}
	return g.fresh
}

//go:norace
func (c *Controller) register(obj uint32, g *G) {
	for int(obj) >= len(c.watchers) {
		c.watchers = append(c.watchers, nil)
	}
	c.watchers[obj] = append(c.watchers[obj], watch{g, g.wgen})
}

// watched reports whether goroutines wait on obj, one by one or in
// groups: whether a change of it has anyone to ask (flush).
//
//go:norace
func (c *Controller) watched(obj uint32) bool {
	return int(obj) < len(c.watchers) && len(c.watchers[obj]) > 0 ||
		int(obj) < len(c.grouped) && len(c.grouped[obj]) > 0
}

// recheck asks waiting goroutine g's Waiter again.
//
//go:norace
func (c *Controller) recheck(g *G) {
	if g.grp != nil {
		return // its group is asked
	}
	c.setCand(g, g.wait.Ready())
}

// flush asks again the goroutines waiting on the objects that changed
// since the last decision, and those woken by name, dropping the
// registrations that no longer stand.
//
//go:norace
func (c *Controller) flush() {
	if len(c.woken) > 0 {
		for _, g := range c.woken {
			if !g.done && g.wait != nil {
				c.recheck(g)
			}
		}
		clear(c.woken)
		c.woken = c.woken[:0]
	}
	for len(c.dirty) > 0 {
		obj := c.dirty[len(c.dirty)-1]
		c.dirty = c.dirty[:len(c.dirty)-1]
		if int(obj) >= len(c.watchers) {
			continue
		}
		if len(c.watchers[obj]) > 0 {
			c.recheckWatchers(obj)
		}
		if int(obj) < len(c.grouped) && len(c.grouped[obj]) > 0 {
			c.flushGroups(obj)
		}
	}
	if len(c.unowned) > 0 {
		ws := c.unowned[:0]
		for _, w := range c.unowned {
			if w.valid() {
				ws = append(ws, w)
				c.recheck(w.g)
			}
		}
		clear(c.unowned[len(ws):])
		c.unowned = ws
	}
}

// recheckWatchers asks again the goroutines registered with obj, dropping
// the registrations that no longer stand.
//
//go:norace
func (c *Controller) recheckWatchers(obj uint32) {
	ws := c.watchers[obj][:0]
	for _, w := range c.watchers[obj] {
		if w.valid() {
			ws = append(ws, w)
			c.recheck(w.g)
		}
	}
	clear(c.watchers[obj][len(ws):])
	c.watchers[obj] = ws
}

// verify compares the candidates with what every live goroutine's Waiter
// says (Options.Verify).
//
//go:norace
func (c *Controller) verify() {
	for _, h := range c.all {
		if h.done {
			continue
		}
		want := h.wait == nil || h.wait.Ready()
		if h.grp != nil {
			if h.grp.ready != want || h.cand || h.fresh {
				panic(fmt.Sprintf("weft: goroutine %s (in %s) waits in a group that is ready=%v, but its Waiter says %v: an object changed and the controller was not told (G.Touch)",
					h.id, h.op, h.grp.ready, want))
			}
			continue
		}
		if h.cand != want || h.fresh != (want && !h.stale) {
			panic(fmt.Sprintf("weft: goroutine %s (in %s) is enabled=%v fresh=%v, but its Waiter says %v: an object changed and the controller was not told (G.Touch)",
				h.id, h.op, h.cand, h.fresh, want))
		}
	}
	c.verifyCalm()
}

// nameOf names g in verify's messages.
//
//go:norace
func nameOf(g *G) string {
	if g == nil {
		return "none"
	}
	return g.id
}

// verifyCalm checks what starving and highest keep from one decision to
// the next against the candidates as they are.
//
//go:norace
func (c *Controller) verifyCalm() {
	s := &c.cands
	if s.hiGen == s.gen {
		s.hiGen = 0
		if hi, fresh := s.hi, s.highest(); hi != fresh {
			panic(fmt.Sprintf("weft: the highest candidate kept is %s, but the candidates say %s", nameOf(hi), nameOf(fresh)))
		}
	}
	if c.calmGen == s.gen && c.steps <= c.calmUntil {
		old, since := s.oldest()
		cur := c.cur.Load()
		if old < 0 || cur != nil && int(old) == cur.idx || since+FairBound != c.calmUntil {
			panic(fmt.Sprintf("weft: no candidate starves up to step %d, it was found, but the candidates' oldest is goroutine #%d, since step %d (the current goroutine is %s)",
				c.calmUntil, old, since, nameOf(cur)))
		}
	}
}

// setCand records whether g is enabled. g is in no group (see ungroup).
//
//go:norace
func (c *Controller) setCand(g *G, enabled bool) {
	g.cand = enabled
	c.setFresh(g, enabled && !g.stale)
}

// setFresh makes g a candidate of decisions or not. A goroutine that
// becomes a candidate again without having run since it last was one
// keeps its wait's start: fairness is strong, as Go's mutex starvation
// mode makes it, so a goroutine enabled again and again (a Lock waiter
// whose mutex another goroutine keeps retaking) runs within FairBound
// events of its first chance, however often it lost it meanwhile.
//
//go:norace
func (c *Controller) setFresh(g *G, in bool) {
	if g.fresh != in {
		c.refresh(g, in)
	}
}

// refresh is setFresh for a goroutine whose membership changes.
//
//go:norace
func (c *Controller) refresh(g *G, in bool) {
	g.fresh = in
	if in && !g.overdue {
		g.since, g.overdue = c.steps, true
	}
	c.cands.set(g, in)
}

// Polling. A goroutine polls when an operation finds nothing to do and
// the goroutine will try again: sim.Yield (runtime.Gosched), a select that
// takes its default case, a TryLock or CompareAndSwap that fails, the
// third read in a row of a location nobody wrote. A goroutine that has
// polled twice since the last change of the execution's state is stale:
// it counts as waiting until a goroutine changes something or the clock
// moves. It stays enabled (a strategy that follows a recorded order may
// run it), but it is no candidate of the decisions (Decision.Len): when
// every enabled goroutine is a stale poller, the clock moves on. So a
// polling loop neither runs forever nor keeps time from passing, and a
// strategy does not starve the goroutine it waits for by running it.

// Polled tells the controller that the operation g just performed found
// nothing to do (a select's default case, a failed TryLock or
// CompareAndSwap): g polls.
//
//go:norace
func (g *G) Polled() { g.c.poll(g, pollInside, false) }

// PolledOutside is Polled for an operation that found nothing to do in
// something outside the execution's knowledge, which can change without
// any of its events (a file lock another process may hold): when nothing
// else can progress, the controller waits for it in real time, as for
// Poll with outside.
//
//go:norace
func (g *G) PolledOutside() { g.c.poll(g, pollOutside, false) }

// Changed tells the controller that the operation g just performed,
// which polled (Polled), changed something after all: a select that found
// none of weft's channels ready, then sent or received on a Go channel that
// weft does not control. Pollers look again, as after any change.
//
//go:norace
func (g *G) Changed(ch uintptr) {
	g.pollEvent, g.goChange = false, true
	g.c.goChanged(ch)
}

// poll records that g's current event is a poll, a load of a value that
// has not changed if load (see pollRead).
//
//go:norace
func (c *Controller) poll(g *G, kind pollKind, load bool) {
	g.pollEvent = true
	goPoll := kind == pollGo
	if g.polls > 0 && g.goPoll == goPoll && g.pollMark == c.pollMark(g, goPoll) {
		g.polls++
		g.outside = g.outside || kind != pollInside
		g.waits = g.waits || !load
		return
	}
	// A new run of polls: what g polls now is what it waits for (a
	// sender on a Go channel, its value taken, that goes on to a loop of
	// selects with a default case waits for the world outside no more).
	g.polls, g.pollMark, g.goPoll = 1, c.pollMark(g, goPoll), goPoll
	g.outside, g.waits = kind != pollInside, !load
}

// changed records that the execution's state changed: stale pollers are
// candidates again.
//
//go:norace
func (c *Controller) changed() {
	c.changes++
	if len(c.stale) > 0 { // at most events, not: no clear, no write of the slice
		c.unstale()
	}
}

// unstale makes the stale pollers candidates again.
//
//go:norace
func (c *Controller) unstale() {
	for _, g := range c.stale {
		g.stale = false
		c.setFresh(g, g.cand && !g.done)
	}
	clear(c.stale)
	c.stale = c.stale[:0]
}

// progressed records a change made by a goroutine: stalls of pollers start
// over.
//
//go:norace
func (c *Controller) progressed() {
	c.changed()
	c.rounds, c.waited, c.vainFrom, c.nudges = 0, 0, 0, 0
}

// account takes stock of g's previous event at its next one (or its exit):
// if it changed something (it was neither pure nor a poll, or it moved a
// Go channel's value), the execution progressed, and g's polls start over;
// pure events (the reads between the polls of a loop) leave them be. A
// poller of Go channels takes a value after its poll, a Yield, which is
// pure: the take is a change all the same, which a select that mixes
// weft's channels with Go's waits for (eapache/channels' ResizableChannel:
// its loop, stale, missed its receiver's takes, and waited for a stall
// round at almost every value).
//
//go:norace
func (c *Controller) account(g *G) {
	if g.changing() {
		c.accountChange(g)
	} else {
		c.accountSpin(g)
		g.pollEvent, g.goChange, g.observed, g.wroteValue = false, false, false, false
	}
}

// changing reports whether g's current event changes something, for
// account: it moved a Go channel's value, or it is neither pure nor a
// poll.
//
//go:norace
func (g *G) changing() bool {
	return g.goChange || !g.pollEvent && g.op != nil && !g.op.pure
}

// accountChange is account for an event that changed something. stepOn
// has it inlined: a change here is a change there.
//
//go:norace
func (c *Controller) accountChange(g *G) {
	// What is known of the value of the event's object, the end of any
	// loop g was in.
	obj := g.obj
	if obj != 0 {
		c.changeValue(obj, g.wrote, g.wroteValue) // unknown, but for what it wrote
	}
	g.spin = spin{}
	g.polls, g.outside = 0, false
	if g.stale && g.goPoll {
		c.goPolledOn(g)
	}
	c.progressed()
	// Once is enough (a Touch may have just queued it). An object nobody
	// waits on has nobody to ask (flush): g, which runs, registers its
	// own wait with its answer.
	if obj != 0 && c.watched(obj) && (len(c.dirty) == 0 || c.dirty[len(c.dirty)-1] != obj) {
		c.dirty = append(c.dirty, obj)
	}
	g.pollEvent, g.goChange, g.observed, g.wroteValue = false, false, false, false
}

// goPolledOn records that stale poller g of Go channels ran while stale (a
// followed schedule may) and past its poll: changed() then releases the
// other pollers only.
//
//go:norace
func (c *Controller) goPolledOn(g *G) {
	g.stale = false
	g.goWakes++
	c.goStaleN--
}

// pollRead counts a read of object obj (not 0) by g: the third read in a
// row of a location that nothing changed in between is a poll.
//
//go:norace
func (c *Controller) pollRead(g *G, obj uint32) {
	if obj == g.readObj && g.readMark == c.changes {
		g.rereads++
		if g.rereads >= 2 {
			c.poll(g, pollInside, true)
		}
		return
	}
	g.readObj, g.readMark, g.rereads = obj, c.changes, 0
}

// makeStale takes g out of the candidates if it has polled twice without
// anything changing.
//
//go:norace
func (c *Controller) makeStale(g *G) {
	if g.polls >= 2 && g.pollMark == c.pollMark(g, g.goPoll) && !g.stale && !g.spinWaits() {
		g.stale = true
		if g.goPoll {
			c.goWait(g)
		} else {
			c.stale = append(c.stale, g)
		}
		c.setFresh(g, false)
	}
}

// Stalls. When no goroutine is a candidate and no timer is pending, the
// goroutines are either blocked for good, or some are stale pollers. A
// poller may be waiting for time to pass without a timer (a loop on
// time.Since), so the pollers get rounds: each of the first clockRounds
// that follow a look at the clock (G.Now) moves the clock on, twice as far
// as the one before (from a microsecond: 40 rounds span 12 days), and every
// round lets them poll again. Pollers that do not look at the clock leave
// it be: otter's warm-up, a loop of three million loads, moved it twelve
// days on, past go test's -timeout, where it takes milliseconds. A poller
// may also be a finite loop of polls that expects nothing (x/sync's
// TestTryGo calls TryGo 1,024 times on a full semaphore), so the rounds go
// on, without moving the clock further, until the pollers have polled in
// vain for maxRounds rounds (two polls each a round), and then for a
// budget of events (Options.MaxSteps) more (see loopsOn). A goroutine that
// polls something outside the execution's knowledge (Poll with outside)
// may be waiting for a goroutine weft does not control: then the rounds
// also wait in real time, up to Options.BlockTimeout (but for the
// maxRounds rounds a poller of the execution's own state beside it gets:
// see pollsInside). When the rounds are
// spent with nothing changed, nothing in the execution can progress: a
// deadlock (a livelock of pollers), or Blocked if an outside poller waited
// in vain.

const (
	clockRounds = 40
	maxRounds   = 1 << 15
	roundNudge  = time.Microsecond
)

// dropUnstale forgets the pollers that are no longer stale (a poller
// that began to spin, see spin.go), with a loop: the race detector checks
// slices' functions even in a //go:norace function.
//
//go:norace
func (c *Controller) dropUnstale() {
	c.stale = keepStale(c.stale)
	c.goStale = keepStale(c.goStale)
	c.goStaleN = len(c.goStale)
}

// keepStale returns the goroutines of list that are still stale, in list's
// backing array.
//
//go:norace
func keepStale(list []*G) []*G {
	n := 0
	for _, g := range list {
		if g.stale {
			list[n] = g
			n++
		}
	}
	for i := n; i < len(list); i++ {
		list[i] = nil
	}
	return list[:n]
}

// roundsBeforeTimer bounds the rounds the stale pollers get in vain while a
// timer is pending, before it fires (see roundBeforeTimer);
// loadRoundsBeforeTimer bounds them when every stale poller polls by loads
// alone (loadsAlone) and none spins: a loop whose operations are all loads
// of a word nothing changes may be at work in plain memory between them,
// as VictoriaMetrics/metrics' WritePrometheus is, which reads its
// exposeMetadata flag once for each of the hundreds of metrics it writes
// (its TestWritePrometheusConcurrent, five goroutines writing beside a
// 5-second timeout, timed out after the two rounds). A loop of loads that
// does wait for the timer costs its rounds' loads, a few thousand events.
const (
	roundsBeforeTimer     = 2
	loadRoundsBeforeTimer = 1 << 10
)

// roundBeforeTimer starts a round for the stale pollers and spinners
// before a pending timer fires, when no goroutine is a candidate, unless
// they have had roundsBeforeTimer rounds since the execution last
// progressed. Three reads in a row of an unchanged word make a poll (see
// pollRead), but a goroutine at work may read one word several times in a
// row: protobuf's lazyInit reads a done flag for every field of a message.
// Firing the timer at once would move the clock by the timer's whole wait
// (groupcache's 5-second timeout fired while its getter marshalled a
// message); a round costs a goroutine that waits for the timer only its
// looks. Pollers that may wait for the world outside get none: they wait
// in real time at a stall, which a timer's firing spares them.
//
//go:norace
func (c *Controller) roundBeforeTimer() bool {
	if c.rounds >= loadRoundsBeforeTimer {
		return false
	}
	c.dropUnstale()
	spinners := c.anySpinner()
	if len(c.stale) == 0 && !spinners {
		return false
	}
	if c.rounds >= roundsBeforeTimer && (spinners || !c.loadsAlone()) {
		return false
	}
	// Pollers of the world outside get no rounds (they wait in real time
	// at a stall, which the timer's firing spares them), but do not hold
	// back the rounds of the others: an Accept of sim/simnet, waiting for
	// the real listener's connections beside goroutines that reread an
	// unchanged word at work (hashicorp/go-msgpack's cache of types),
	// fired a 200 ms timer at once (simnet's TestAcceptNotOutside).
	inside := spinners
	for _, g := range c.stale {
		inside = inside || !g.outside && !g.waits
	}
	for _, g := range c.stale {
		if g.outside && !inside {
			return false
		}
	}
	if spinners {
		c.releaseSpinners()
	}
	c.rounds++
	c.changed()
	return true
}

// waitOutside gives the pollers of what lies outside the execution (a Go
// channel that a plain goroutine may still feed: a send SendGo handed to
// one) a round in real time before the execution times out, as unstall
// does at a stall, but without moving the clock, which a pending timer
// holds (jellydator/ttlcache's Stop hands its send on a Go channel to a
// plain goroutine, which the cache's loop, a poller, receives at its next
// look). It reports false when there are none, or their wait is spent.
//
//go:norace
func (c *Controller) waitOutside() bool {
	c.dropUnstale()
	if !c.pollsOutside() || c.waited >= c.opts.BlockTimeout {
		return false
	}
	c.waitRound()
	c.rounds++
	c.changed()
	c.goRound()
	return true
}

// pollsOutside reports whether a stale poller may wait for what lies
// outside the execution: a Go channel, something a goroutine weft does not
// control may change.
//
//go:norace
func (c *Controller) pollsOutside() bool {
	outside := len(c.goStale) > 0
	for _, g := range c.stale {
		outside = outside || g.outside
	}
	return outside
}

// pollsInside reports whether a stale poller or a spinner waits for
// nothing but the execution: it may go on by itself at its next look (a
// loop whose select takes its default case at each turn, between the
// sends of Workiva/go-datastructures' dtrie iterator on a Go channel), so
// its maxRounds rounds, as many as it would get alone, are not held up in
// real time for the pollers of the world outside beside it. Each waited a millisecond or
// more, and dtrie's TestIterate, ten thousand entries, ran an execution
// in four minutes.
//
//go:norace
func (c *Controller) pollsInside(spinners bool) bool {
	inside := spinners
	for _, g := range c.stale {
		inside = inside || !g.outside
	}
	return inside
}

// waitRound waits in real time before a round of pollers of the world
// outside: longer each round, up to 32 ms, within the block timeout.
//
//go:norace
func (c *Controller) waitRound() {
	d := min(time.Millisecond<<min(c.rounds, 5), c.opts.BlockTimeout-c.waited)
	time.Sleep(d)
	c.waited += d
}

// loopsOn reports whether pollers that load what nothing changes, and
// have spent their maxRounds rounds in vain, get another round: for a
// budget of events (Options.MaxSteps) from the first of these, vainFrom.
// A loop whose only operation is a load of a value nothing changes is a
// poller, but it may be a finite loop whose work is in plain memory:
// otter's warm-up reads its sketch's atomic flag three million times, a
// loop of a few milliseconds that was called a deadlock at its hundred
// thousandth read. A loop of loads alone that never ends is still a
// deadlock, a budget of events later; one that yields, or polls a
// select's default case, a TryLock or a CompareAndSwap, says it waits,
// and is one as soon as its rounds are spent (see loadsAlone).
//
//go:norace
func (c *Controller) loopsOn() bool {
	if c.vainFrom == 0 {
		c.vainFrom = c.steps
	}
	return c.steps-c.vainFrom < c.opts.MaxSteps
}

// loadsAlone reports whether every stale poller polls by loads alone (see
// loopsOn); spinners are not asked, nor the pollers of the world outside
// (a Go channel), which a round before a timer does not wait for.
//
//go:norace
func (c *Controller) loadsAlone() bool {
	for _, g := range c.stale {
		if g.waits && !g.outside {
			return false
		}
	}
	return true
}

// unstall starts a round for the stale pollers. It reports false when
// there are none, or their rounds are spent.
//
//go:norace
func (c *Controller) unstall() bool {
	c.dropUnstale()
	spinners := c.anySpinner()
	if len(c.stale) == 0 && len(c.goStale) == 0 && !spinners {
		return false
	}
	if c.pollsOutside() {
		if c.waited >= c.opts.BlockTimeout {
			c.blockedPolling()
			return false
		}
		if c.rounds >= maxRounds || !c.pollsInside(spinners) {
			c.waitRound()
		}
	} else if c.rounds >= maxRounds && (spinners || !c.loadsAlone() || !c.loopsOn()) {
		return false
	}
	if c.nudges < clockRounds && c.clockRead {
		c.now += int64(roundNudge) << c.nudges
		c.nudges++
	}
	c.clockRead = false
	if spinners {
		c.releaseSpinners()
	}
	c.rounds++
	c.changed()
	c.goRound()
	return true
}
