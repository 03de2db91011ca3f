package sched

import (
	"fmt"
	"runtime/metrics"
	"strings"
	"sync"
	"time"

	"github.com/weftdev/weft/internal/text"
)

// goroutinesCreated returns how many goroutines the process has created.
// A controlled goroutine calls it too (startedOthers): c.metric is state
// of the controller's.
//
//go:norace
func (c *Controller) goroutinesCreated() uint64 {
	s := c.metric[:] // in the controller: a sample on the stack would escape
	s[0].Name = "/sched/goroutines-created:goroutines"
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 1 << 63 // unknown: always look
	}
	return s[0].Value.Uint64()
}

// A window is what findEscapes reads at an execution's start and end: the
// goroutines the process created, and the janitors started.
type window struct{ created, janitors uint64 }

// watchTimers are the watchdogs' timers, stopped: making a timer for
// every execution would cost more than a small execution's events.
var watchTimers = sync.Pool{New: func() any {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return t
}}

// The process's first time.NewTimer reads the asynctimerchan GODEBUG
// setting, which it looks up once (a sync.Once). Made at package
// initialization, that lookup happens before every goroutine: made by the
// first execution's watchdog, after the execution began, it would race,
// under the race detector, with a controlled goroutine's first timer in
// weft's own code (awaitVisit's), whose synchronization is hidden.
func init() { watchTimers.Put(watchTimers.Get()) }

// doneChans are the channels on which the last goroutine of an execution
// tells its watchdog that it exited: a send on a buffered channel rather
// than a close, so that one serves execution after execution. A channel
// goes back to the pool once received from: an abandoned execution's is
// left to it.
var doneChans = sync.Pool{New: func() any { return make(chan struct{}, 1) }}

// HangSlack is how much longer than Options.BlockTimeout the watchdog
// waits for a goroutine that runs without reaching a weft operation
// before it gives up on the execution.
const HangSlack = 3 * time.Second

// watch waits for the execution to end. A controlled goroutine that blocks
// on something weft does not know (a raw channel, a sync.Mutex, I/O) never
// reaches its next event, and nothing else can run: after
// Options.BlockTimeout without progress, with the goroutine seen blocked in
// a dump of its stack, the execution is abandoned and reported as Blocked,
// so the test binary never hangs. A goroutine that runs without events (a
// loop on plain memory, or a long computation) is given HangSlack more,
// then abandoned and reported the same way.
func (c *Controller) watch() *Result {
	var w watcher
	w.reset(c)
	timer := watchTimers.Get().(*time.Timer)
	timer.Reset(w.next())
	defer func() {
		timer.Stop()
		watchTimers.Put(timer)
	}()
	for {
		select {
		case <-c.done:
			doneChans.Put(c.done)
			return nil
		case <-timer.C:
		}
		if g, s, running, stuck := w.check(); stuck {
			return c.abandon(g, s, running)
		}
		timer.Reset(w.next())
	}
}

// A watcher follows the progress of one execution, tick by tick, for its
// watchdog (Controller.watch, or a sequence's: see sequence.go).
//
// Time without progress is counted tick by tick, a tick counting twice
// its interval at most: a process that the machine does not run for a
// while (a loaded machine, a stopped process, a suspended laptop) runs
// neither its goroutines nor its watchdog, and that time is nobody's
// fault.
//
// A goroutine that waits for a child process (exec.Cmd.Run, a go build
// in a test) is neither: its time is the child's, however long.
//
// A goroutine that runs without events is stuck once it has also used the
// time in CPU time (the process's: the others wait), or four times the
// time in real time whatever it used: a long computation on a machine
// loaded by other work (a million testify assertions in a callback, 0.7 s
// of CPU that took more than 5 s at a load average of 8) is no hang, and a
// loop that never ends uses the CPU it is given.
type watcher struct {
	c              *Controller
	interval       time.Duration // between ticks
	last           uint64        // c.progress at the last tick
	still, blocked time.Duration // without progress; and seen blocked
	cpu            time.Duration // the process's CPU time at the last progress
	cpuKnown       bool          // cpu could be read
	tick           time.Time
	quiet          int           // ticks in a row without progress
	tickCPU        time.Duration // the process's CPU time at the last tick
}

// busy reports whether the process used the CPU for half the time passed
// since the last tick or more.
func (w *watcher) busy(passed time.Duration) bool {
	now, ok := cpuTime()
	used := now - w.tickCPU
	w.tickCPU = now
	return ok && used >= passed/2
}

// next returns the wait before the next tick: awayTick after a tick that
// saw progress, twice as long after each that saw none, up to the
// interval. A goroutine that holds the baton blocked in the network is
// found soon (see detach); one that computes costs a few looks at the
// goroutines' stacks more.
func (w *watcher) next() time.Duration {
	if w.quiet >= 30 {
		return w.interval
	}
	return min(awayTick<<w.quiet, w.interval)
}

// reset starts watching c's execution.
func (w *watcher) reset(c *Controller) {
	*w = watcher{c: c, interval: max(c.opts.BlockTimeout/4, time.Millisecond),
		last: c.look(), tick: time.Now()}
	w.cpu, w.cpuKnown = cpuTime()
}

// ranTooLong reports whether a goroutine that ran without events since
// the last progress is stuck.
func (w *watcher) ranTooLong() bool {
	limit := w.c.opts.BlockTimeout + HangSlack
	if w.still < limit {
		return false
	}
	now, ok := cpuTime()
	return !w.cpuKnown || !ok || now-w.cpu >= limit || w.still >= 4*limit
}

// check is a tick: it reports whether the execution is stuck, and if so
// the goroutine that holds the baton, its stack, and whether it runs
// (rather than waits).
func (w *watcher) check() (g *G, s goroutineStack, running, stuck bool) {
	c := w.c
	now := time.Now()
	passed := min(now.Sub(w.tick), 2*w.interval)
	w.tick = now
	if p := c.look(); p != w.last || c.dumping.Load() {
		w.last, w.still, w.blocked, w.quiet = p, 0, 0, 0
		w.cpu, w.cpuKnown = cpuTime()
		return nil, s, false, false
	}
	w.quiet++
	if passed < w.interval && w.busy(passed) {
		// An early look while the process computes: something runs, no
		// goroutine is to be taken away from the network yet.
		w.still += passed
		return nil, s, false, false
	}
	g = c.cur.Load()
	s, ok := c.stackOf(goroutineStacks(), g)
	if ok && s.blocked() && c.detach(g, s) {
		// The others run while g waits in the network (away.go).
		w.last, w.still, w.blocked, w.quiet = c.look(), 0, 0, 0
		return nil, s, false, false
	}
	if ok && s.waitsForChild() {
		// The child is a process of its own that the machine runs, as
		// under go test; if it never ends, the test's -timeout ends both.
		w.still, w.blocked = 0, 0
		w.cpu, w.cpuKnown = cpuTime()
		return g, s, false, false
	}
	w.still += passed
	running = !ok || !s.blocked()
	if running {
		w.blocked = 0
		return g, s, true, w.ranTooLong()
	}
	w.blocked += passed
	return g, s, false, w.blocked >= c.opts.BlockTimeout
}

// abandon gives up on the execution, whose goroutine g (with stack s) is
// stuck, and returns its Result, a Blocked failure. The others end, one at
// a time, at their next operation (their deferred calls included), so
// that none is left parked; if the stuck one ever wakes up, it exits at
// its next operation.
func (c *Controller) abandon(g *G, s goroutineStack, running bool) *Result {
	site, stack := s.user()
	r := c.result()
	r.Schedule() // built now: the goroutines that drain still use c
	c.stuck = g
	c.drained = make(chan struct{})
	c.abandoned.Store(true)
	if next := c.nextLive(g); next != nil {
		c.handoff(next)
		drainWait := time.NewTimer(c.opts.BlockTimeout)
		select {
		case <-c.drained:
		case <-drainWait.C: // one of them blocked outside too: leave it
		}
		drainWait.Stop()
	}
	if r.Failure != nil {
		r.More = append([]*Failure{r.Failure}, r.More...)
	}
	msg := fmt.Sprintf("goroutine %s blocked outside weft's control (in %s) for %v: use weft's primitives (package sim) for everything that waits",
		g.id, s.waitingIn(), c.opts.BlockTimeout)
	if running {
		msg = fmt.Sprintf("goroutine %s ran for %v without an event of the execution (at %s): a loop that waits on something weft does not control, or a computation longer than the block timeout",
			g.id, c.opts.BlockTimeout+HangSlack, text.OrDash(site))
	}
	r.Failure = &Failure{Kind: Blocked, Goroutine: g.id, Site: site, Stack: stack, Message: msg}
	return r
}

// findEscapes looks for goroutines that escaped the controller: started with
// a plain go statement from a controlled goroutine, they carry the
// execution's profiler labels, and outlive it. Goroutines that end within a
// few milliseconds are given the time to.
//
// Reading the goroutine profile costs far more than an execution, so it is
// only done when the process created other goroutines than the workers the
// execution started while it ran: started by a plain go statement, or by
// whatever else runs in parallel.
//
// A goroutine that runs nothing but the standard library's code (net/http's
// loops of a connection: a response whose body the test never closed, a
// connection kept alive) is not a failure, as under go test: its
// standard library started it, no go statement of the user's, and nothing
// of weft's would have it otherwise. It comes back in std, to be listed as
// kept running; but with -explore.strictleaks, as goleak would, it is an
// escape too. Under Options.Rewritten, so is every goroutine that carries
// the execution's labels: code weft does not rewrite started it (a
// package the safety net skipped), as no go statement of the rewritten
// code is left, and go test would not fail for it either.
func (c *Controller) findEscapes() (esc *Failure, std []Waiting) {
	c.end = window{c.goroutinesCreated(), janitors.Load()}
	if c.end.created-c.created <= uint64(c.workers)+c.relays.Load()+c.end.janitors-c.janitor {
		return nil, nil
	}
	for attempt := 0; ; attempt++ {
		ws, stdOnly := c.escapedGoroutines()
		if len(ws) == 0 {
			return nil, nil
		}
		if attempt == 6 {
			if (stdOnly || c.opts.Rewritten) && !c.opts.StrictLeaks {
				return nil, ws
			}
			f := &Failure{Kind: Escape, Waiting: ws, Site: ws[0].Site,
				Message: fmt.Sprintf("%d goroutine(s) started with a plain go statement outlived the execution; start them with sim.Go so weft controls them", len(ws))}
			return f, nil
		}
		time.Sleep(time.Millisecond << attempt)
	}
}

// escapedGoroutines returns the goroutines that carry the labels of the
// execution's workers and its test name but are no worker, after every
// controlled goroutine has exited. (A worker runs goroutines of several
// executions in turn: the test name keeps a parallel test's escape from
// being counted here.) stdOnly says that every one of them runs the
// standard library's code alone.
func (c *Controller) escapedGoroutines() (out []Waiting, stdOnly bool) {
	mine := make(map[string]bool, len(c.all))
	for _, g := range c.all {
		mine[g.w.num] = true
	}
	stdOnly = true
	for _, s := range goroutineStacks() {
		if s.worker() || s.stdDaemon() || !mine[first(s.labels["weft.w"])] || first(s.labels["weft.test"]) != c.opts.Name {
			continue
		}
		site, stack := s.user()
		w := Waiting{Op: "go statement", Site: site, Stack: stack}
		if site == "" {
			w.Goroutine, w.Op, w.Site = "of the standard library", s.function(), "-"
		} else {
			stdOnly = false
		}
		for range s.count {
			out = append(out, w)
		}
	}
	return out, stdOnly
}

// function returns the function the goroutine runs: its outermost frame
// but the runtime's.
func (s goroutineStack) function() string {
	for i := len(s.frames) - 1; i >= 0; i-- {
		if fn := s.frames[i].fn; !strings.HasPrefix(fn, "runtime.") {
			return fn
		}
	}
	return "the runtime"
}

// Observers of an execution from outside it (the watchdog, a visitor
// waiting for its visit) ask whether it moved between two of their looks.
// An event publishes that it moved only when an observer looked since the
// last publication: a load of a flag at every event, where a count
// advanced at every event would cost each one an atomic read-modify-write,
// a tenth of a small event. Whatever the number of observers, an event
// after an observer's look is counted by its next look: the event either
// finds the flag that look cleared, and publishes, or finds it set by an
// event after that look, whose count, published after setting it (and
// before the event runs on), the next look reads (barring the nanoseconds
// between the two, in which the next look may come first, and the one
// after counts it).

// moves publishes that the execution moves, at each of its events.
//
//go:norace
func (c *Controller) moves() {
	if !c.moved.Load() {
		c.moved.Store(true)
		c.progress.Add(1)
	}
}

// look returns the count of the moves published so far, for an observer
// to compare with its next look's.
func (c *Controller) look() uint64 {
	p := c.progress.Load()
	c.moved.Store(false)
	return p
}
