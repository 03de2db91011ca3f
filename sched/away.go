package sched

import (
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/weftdev/weft/internal/race"
)

// Goroutines away in network I/O. A controlled goroutine that waits in
// the network (a listener's Accept, a connection's Read, net/http's
// client waiting for its own goroutines) waits for the world outside,
// which weft does not control: under go test the others run meanwhile,
// and one of them is often what it waits for (the test's body makes the
// request that a server goroutine of the test accepts). Holding the
// baton, it kept every other goroutine of the execution from running
// until the watchdog gave up on the execution as Blocked.
//
// So the watchdog, which looks at the goroutine that holds the baton when
// the execution stops moving (first after awayTick, then less and less
// often), takes the baton from one it finds blocked in the network (see
// detach): the goroutine is away, no candidate, and the watchdog decides
// in its place who runs next, as at an event of its own. When the
// goroutine comes back from the network, at its next weft operation (or
// its exit), it finds another goroutine holding the baton (Claim), says
// it is back and waits for the baton as any candidate does (rejoin).
// When nothing else can run, the controller waits in real time for a
// goroutine to come back before it fires the next timer (up to the
// timer's own wait: go test would wait that long) or, with no timer,
// declares a stall, within Options.BlockTimeout of waiting in all; then
// it gives the baton back to a goroutine still away (giveBack), and the
// watchdog reports it Blocked after another Options.BlockTimeout, as it
// did before, without taking it again until the execution moves.
//
// A goroutine that the standard library starts from a controlled one (an
// HTTP server's handler of a connection, started by net/http from the
// goroutine in Accept) carries its identity, but is told apart from it at
// its first weft operation (G.Claim) and leaves the execution: it runs in
// plain mode, outside every schedule, and does not come back in the
// controlled goroutine's name.
//
// Not deterministic: when a goroutine goes away and comes back depends on
// the network and on real time, not on the schedule. A replay of a saved
// schedule takes the same decisions as long as the goroutines go away at
// the same events, which a connection made before its Accept (which then
// does not wait) changes.
//
// Under the race detector, a goroutine goes away as it does without it:
// the handoffs that going away and coming back make (the watchdog's swap
// of the baton and its decision, a goroutine's way back in rejoin) are
// hidden from it (race.Disable), as a step's are (see race.go), so that
// they order none of the execution's goroutines after another. The
// goroutine away runs beside the others, as under go test -race, ordered
// with them by the primitives' edges alone: a race between what it does
// on its way back and what they do is reported.

// The states of G.away: at home (it holds the baton or waits for it
// inside the controller), away (blocked outside, the watchdog took its
// baton), or back (it came back and waits for the baton).
const (
	awayHome = iota
	awayOut
	awayBack
)

// awayTick is the watchdog's first look at an execution that stopped
// moving; each look without a move waits twice as long, up to its
// interval.
const awayTick = 2 * time.Millisecond

// awaySlice bounds each real-time wait for a goroutine to come back, after
// which the controller tells the watchdog that it still moves.
const awaySlice = 32 * time.Millisecond

// opAway is the event at which a goroutine goes away.
var opAway = NewOp("network I/O (outside weft)")

// detaching holds the baton while the watchdog takes it from a goroutine
// going away: one that comes back meanwhile waits for the outcome. Then
// deciding holds it while the watchdog decides in the goroutine's place,
// which may take a wait in real time for one to come back (awaitBack).
var (
	detaching = &G{idx: -1, id: "watchdog"}
	deciding  = &G{idx: -1, id: "watchdog"}
)

// backs is what goroutines coming back tell the controller, which takes
// it under the baton: the goroutines back, and a signal for a controller
// that waits for one.
type backs struct {
	mu  sync.Mutex
	gs  []*G
	n   atomic.Int32  // len(gs), read without the lock
	ch  chan struct{} // capacity 1: one came back; made by the first detach
	out int           // goroutines away or back, not yet home (controller state)
	// waited is the real time waited for them since one last came back;
	// timerAt the virtual time of the timer last waited for.
	waited  time.Duration
	timerAt int64
	// spent is the goroutine to which the controller gave the baton back
	// while it was still away (giveBack), at its spentAt'th event: the
	// watchdog leaves it alone until its next event.
	spent   atomic.Pointer[G]
	spentAt int
}

// inNetwork reports whether the goroutine waits in the network: the
// innermost frame below the runtime's and package sync's is one of package
// net (or its subpackages: net/http, and httptest's Server.Close, which
// waits on a sync.WaitGroup for its handlers, on goroutines that left the
// execution and may wait for it to perform their visits), internal/poll
// or crypto/tls. A lock of sync that one of those waits for is the
// network's: crypto/tls's Conn holds Go's mutexes across its handshake,
// which reads and writes the connection below it, under control weft's
// in-memory one (package sim/simnet), whose waits are events: the
// goroutine that waits for the handshake in its own Read or Write waits
// for another goroutine of the execution, which could not run while it
// held the baton.
func (s goroutineStack) inNetwork() bool {
	for _, f := range s.frames {
		if strings.HasPrefix(f.fn, "runtime.") || strings.HasPrefix(f.fn, "internal/runtime/") ||
			strings.HasPrefix(f.fn, "sync.") || strings.HasPrefix(f.fn, "internal/sync.") {
			continue
		}
		return strings.HasPrefix(f.fn, "net.") || strings.HasPrefix(f.fn, "net/") ||
			strings.HasPrefix(f.fn, "internal/poll.") || strings.HasPrefix(f.fn, "crypto/tls.")
	}
	return false
}

// outside reports whether the goroutine waits for the world outside the
// execution: in the network, or for a child process, which may be a
// client of the execution's own servers (cilium/hive's shell test runs
// its binary as one) and so needs the others to run, as under go test.
// One that waits for a child is given the baton back, once the others
// can no longer run, as one in the network is (giveBack); the watchdog
// then waits for the child however long it takes (waitsForChild).
func (s goroutineStack) outside() bool {
	return s.inNetwork() || s.waitsForChild()
}

// detach takes the baton from g, which holds it and was seen (stack s)
// blocked in the network or waiting for a child process (outside), and
// decides who runs in its place. It reports false if g may be on its way
// back (it is not blocked there any more),
// or the execution may not let it go. Run by the watchdog.
//
//go:norace
func (c *Controller) detach(g *G, s goroutineStack) bool {
	if g == nil || !s.outside() || c.abandoned.Load() || c.back.spent.Load() == g && g.n == c.back.spentAt {
		return false
	}
	// The watchdog acts as a goroutine that holds the baton: its
	// handoffs are hidden from the race detector, as a step's are. The
	// dump is not: it formats with fmt, whose pool of printers is
	// synchronization the race detector must see.
	race.Disable()
	swapped := c.cur.CompareAndSwap(g, detaching)
	race.Enable()
	if !swapped {
		return false
	}
	// g may have woken up between the dump and the swap, and be at an
	// event already: look again, now that an operation it comes to
	// waits. (Reading the goroutine profile stops the world: what g wrote
	// before it blocked is seen.)
	s, ok := c.stackOf(goroutineStacks(), g)
	race.Disable()
	defer race.Enable()
	if !ok || !s.blocked() || !s.outside() || c.aborting || g.done {
		c.cur.CompareAndSwap(detaching, g)
		return false
	}
	if c.back.ch == nil {
		c.back.ch = make(chan struct{}, 1)
	}
	c.back.out++
	g.away.Store(awayOut)
	c.cur.Store(deciding) // g may come back from now on
	// Its event: it waits for the world outside.
	g.n++
	c.steps++
	c.now += int64(Tick)
	c.mix(uint64(g.idx)<<32 ^ opAway.hash)
	c.moves()
	c.account(g) // the event before, as step does: a close g made just before wakes its waiters
	g.op, g.obj, g.wait, g.yield = opAway, 0, Never, false
	g.wgen++
	c.await(g)
	next := c.decide(g)
	if next == nil {
		// The execution fails (or ends, its root done): the others exit
		// one at a time, and g when it comes back.
		next = c.nextLive(g)
		if next == nil {
			next = g
		}
	} else {
		c.run(next)
	}
	c.handoff(next)
	return true
}

// rejoin is the way back of a goroutine that runs as g while another
// holds the baton (Claim): g itself back from the network (or a goroutine
// started from g's by code weft does not rewrite, which Claim takes for
// g's). It reports whether the caller now holds the baton as g; false: it
// is an escape. Its waits for the baton are hidden from the race detector,
// as a step's are.
//
//go:norace
func (c *Controller) rejoin(g *G) bool {
	race.Disable()
	defer race.Enable()
	for i := 0; ; i++ {
		switch c.cur.Load() {
		case g:
			return true
		case detaching:
			runtime.Gosched()
			continue
		}
		if g.away.CompareAndSwap(awayOut, awayBack) {
			c.back.mu.Lock()
			c.back.gs = append(c.back.gs, g)
			c.back.n.Add(1)
			c.back.mu.Unlock()
			select {
			case c.back.ch <- struct{}{}:
			default:
			}
			<-g.w.wake
			return true
		}
		// Given back (giveBack, an abort) between the two loads: the
		// baton is g's in a moment.
		if g.away.Load() != awayHome || i >= 100 {
			return false
		}
		runtime.Gosched()
	}
}

// handAway passes the baton to next if it is away or back: one away runs
// on from where it is when it comes back, as though it had held the baton
// all along; one back waits for it on its wake channel, as usual
// (handAway reports false). The caller is handoff.
//
//go:norace
func (c *Controller) handAway(next *G) bool {
	switch next.away.Load() {
	case awayHome:
		return false
	case awayOut:
		if next.away.CompareAndSwap(awayOut, awayHome) {
			c.back.out--
			c.cur.Store(next)
			return true
		}
	}
	next.away.Store(awayHome)
	c.back.out--
	return false
}

// takeBacks makes the goroutines that came back candidates.
//
//go:norace
func (c *Controller) takeBacks() {
	c.back.mu.Lock()
	gs := c.back.gs
	c.back.gs = nil
	c.back.n.Store(0)
	c.back.mu.Unlock()
	for _, g := range gs {
		if g.away.Load() != awayBack || g.done {
			continue
		}
		c.back.waited = 0
		g.wait = nil
		g.wgen++
		c.setCand(g, true)
	}
}

// awaitBack waits in real time, when nothing can run, for a goroutine
// away to come back: up to the next timer's wait if one is pending (once
// per timer), up to a slice of Options.BlockTimeout otherwise, within
// Options.BlockTimeout in all since one last came back or a visit was
// served. It reports whether one did, or a visit arrived.
//
//go:norace
func (c *Controller) awaitBack(timer bool, in time.Duration) bool {
	d := min(c.opts.BlockTimeout-c.back.waited, awaySlice)
	if timer {
		at := c.now + int64(in)
		if at == c.back.timerAt {
			return false
		}
		c.back.timerAt = at
		d = min(c.opts.BlockTimeout-c.back.waited, in)
	}
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	for end := time.Now().Add(d); ; {
		slice := min(time.Until(end), awaySlice)
		if slice <= 0 || c.abandoned.Load() {
			return false
		}
		t.Reset(slice)
		start := time.Now()
		visit := false
		select {
		case <-c.back.ch:
		case <-c.visitArrived():
			// A goroutine outside (a server's handler that left the
			// execution, on a connection of a goroutine away) visits:
			// served at once (noCandidate).
			visit = true
		case <-t.C:
		}
		c.back.waited += time.Since(start)
		c.moves() // the execution waits, bounded: no hang for the watchdog
		if c.back.n.Load() > 0 {
			c.takeBacks()
			return true
		}
		if visit {
			return true
		}
	}
}

// backs makes the goroutines that came back candidates, if any did.
//
//go:norace
func (c *Controller) backs() {
	if c.back.out > 0 && c.back.n.Load() > 0 {
		c.takeBacks()
	}
}

// awayWait reports whether a stall waits again for a goroutine away to
// come back (awaitBack), within Options.BlockTimeout.
//
//go:norace
func (c *Controller) awayWait() bool {
	return c.back.out > 0 && !c.aborting && !c.abandoned.Load() && c.back.waited < c.opts.BlockTimeout
}

// giveBack returns the first goroutine still away, to which the baton
// goes back at a stall once one has been waited for Options.BlockTimeout
// (see awayWait), or nil: the watchdog then reports it as it reports a
// goroutine blocked outside.
//
//go:norace
func (c *Controller) giveBack() *G {
	if c.back.out == 0 || c.aborting || c.abandoned.Load() {
		return nil
	}
	for _, g := range c.all {
		if !g.done && g.away.Load() == awayOut {
			c.back.spentAt = g.n
			c.back.spent.Store(g)
			return g
		}
	}
	return nil
}
