package sched

import (
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/weftdev/weft/internal/race"
)

// Sequences. Run hands an execution's root to a worker and waits for the
// execution to end, watching it: two goroutine switches an execution (the
// start, and the end) and a timer, a third of the switches of a small
// execution. An exploration runs thousands of executions in a row, and its
// caller does nothing in between but decide the next one: RunSequence
// hands the whole sequence to one worker, the runner, which runs each
// execution's root itself, and decides the next execution itself, while
// the caller waits for the sequence to end and watches the executions
// (the watchdog of every execution of the sequence, with one timer).
//
// The runner is disposable, as every worker is: a root that blocks
// outside weft keeps the runner with it, and a root that ends with
// runtime.Goexit (t.FailNow, an abort, a deadlock) ends it. In both cases
// another worker, the relay, carries the sequence on: when the watchdog
// abandons an execution, it starts a relay with the execution's Result;
// when the root exits through runtime.Goexit, its runner starts a relay,
// which waits for the end of the execution; and a runner from which a
// goroutine escaped an execution (a plain go statement, which inherits its
// label set and so the identity of whatever root it runs next) hands the
// sequence to a relay and ends, as Run's worker would be retired. Which
// goroutine carries the sequence on past an execution is decided once, by
// Controller.ended: the one that ended it (the runner, or a relay, once
// the last goroutine exited), or the watchdog that abandoned it.
//
// Under the race detector, RunSequence runs each execution with Run, on
// the caller: a runner would be a goroutine reused by the roots of
// several executions.

// A sequence is the state of RunSequence, shared by the caller and the
// worker that carries the sequence on.
type sequence struct {
	next func() (body func(), strategy Strategy, opts Options, ok bool)
	done func(*Result) bool

	// The execution to run next, from next: written and read by the
	// goroutine that carries the sequence on.
	body     func()
	strategy Strategy
	opts     Options

	mu  sync.Mutex                 // held by the watchdog while it looks at cur
	cur atomic.Pointer[Controller] // the execution under way, until it ends
	n   atomic.Uint64              // executions started
	end chan struct{}              // closed when the sequence is over
}

// RunSequence runs executions one after another, each as Run does, until
// next reports no more (ok false) or done returns false. next gives the
// next execution's body, strategy and options; done receives its Result,
// which it may keep or release (Result.Release). next and done are called
// in turn, one at a time, each call after the previous one returned,
// first next, then done for the execution next gave, and so on; but not
// on the caller's goroutine (the first call of next excepted), and not
// always on the same goroutine: they must not depend on the goroutine
// they run on (its identity, its profiler labels), nor start goroutines
// that outlive the call. RunSequence returns once done returned false or
// next reported no more.
//
// An execution of a sequence costs two goroutine switches fewer than one
// of Run, and no timer.
func RunSequence(next func() (body func(), strategy Strategy, opts Options, ok bool), done func(*Result) bool) {
	if race.Enabled {
		for {
			body, strategy, opts, ok := next()
			if !ok || !done(Run(body, strategy, opts)) {
				return
			}
		}
	}
	s := &sequence{next: next, done: done, end: make(chan struct{})}
	if !s.advance() {
		return
	}
	running.Add(1) // idle workers stay (see worker.go)
	defer running.Add(-1)
	w := takeIdle(s.opts.Name)
	if w == nil {
		w = newWorker()
	}
	w.seq = s
	w.wake <- struct{}{}
	s.watch()
}

// advance asks for the next execution; false if there is none, and the
// sequence is over.
func (s *sequence) advance() bool {
	var ok bool
	s.body, s.strategy, s.opts, ok = s.next()
	if !ok {
		s.body, s.strategy = nil, nil
		close(s.end)
	}
	return ok
}

// deliver gives r to done, then asks for the next execution; false if the
// sequence is over.
func (s *sequence) deliver(r *Result) bool {
	if !s.done(r) {
		s.body, s.strategy = nil, nil
		close(s.end)
		return false
	}
	return s.advance()
}

// carry carries the sequence on, on worker w: from r, the Result of an
// execution to deliver, or from c, an execution whose root has exited, to
// wait for, or else from the next execution to run. It reports whether w
// may serve again.
//
//go:norace
func (s *sequence) carry(w *worker, c *Controller, r *Result) (reuse bool) {
	var since window // the end of the execution before, if it ended here
	for {
		switch {
		case r != nil:
			if !s.deliver(r) {
				return true
			}
			r = nil
		case c != nil:
			if r = s.await(c); r == nil {
				return false // abandoned: the watchdog carries the sequence on
			}
			if c.escapedSome {
				// A goroutine that escaped the execution carries w's
				// label set, and would take the identity of the next root
				// w runs: w runs no other (see Controller.result).
				s.relay(nil, r)
				return false
			}
			since = c.end
			c = nil
		default:
			c = setup(s.strategy, s.opts, since)
			since = window{}
			body := s.body
			s.body, s.strategy = nil, nil
			c.root.w = w // before the watchdog sees c
			s.cur.Store(c)
			s.n.Add(1)
			if !s.root(c, body) {
				return false // the root's worker died: a relay carries the sequence on
			}
			if c.abandoned.Load() {
				return false
			}
		}
	}
}

// root runs body as the root of execution c, on the calling goroutine
// (c.root.w's). If the root exits through runtime.Goexit, which ends the
// goroutine, it starts a relay that waits for the execution's end in its
// place.
//
//go:norace
func (s *sequence) root(c *Controller, body func()) (alive bool) {
	defer func() {
		if !alive {
			c.relays.Add(1)
			s.relay(c, nil)
		}
	}()
	c.goroutine(c.root, body)
	return true
}

// await waits for execution c to end, and returns its Result; nil if the
// watchdog abandoned it, and carries the sequence on.
//
//go:norace
func (s *sequence) await(c *Controller) *Result {
	<-c.done
	if !c.ended.CompareAndSwap(false, true) {
		return nil
	}
	doneChans.Put(c.done)
	s.mu.Lock() // the watchdog no longer looks at c
	s.cur.Store(nil)
	s.mu.Unlock()
	return c.finish(nil)
}

// watch is the watchdog of the sequence's executions (see
// Controller.watch): it returns once the sequence is over.
func (s *sequence) watch() {
	var w watcher
	watched := uint64(0) // the execution w watches, by s.n
	interval := max(s.opts.BlockTimeout/4, time.Millisecond)
	if s.opts.BlockTimeout <= 0 {
		interval = DefaultBlockTimeout / 4
	}
	w.interval = interval // until the first execution's reset
	timer := watchTimers.Get().(*time.Timer)
	defer func() {
		timer.Stop()
		watchTimers.Put(timer)
	}()
	for {
		timer.Reset(w.next())
		select {
		case <-s.end:
			return
		case <-timer.C:
		}
		s.mu.Lock()
		c := s.cur.Load()
		switch n := s.n.Load(); {
		case c == nil:
			w.quiet++ // between executions: look less often
		case n != watched:
			watched = n
			w.reset(c)
			interval = w.interval
		default:
			if g, st, running, stuck := w.check(); stuck && c.ended.CompareAndSwap(false, true) {
				r := c.abandon(g, st, running)
				s.cur.Store(nil)
				select {
				case c.done <- struct{}{}: // a root that exited waits for it
				default:
				}
				s.relay(nil, r)
			}
		}
		s.mu.Unlock()
	}
}

// relay starts a worker that carries the sequence on in the caller's
// place, from execution c or Result r (see carry).
func (s *sequence) relay(c *Controller, r *Result) {
	w := newWorker()
	w.seq, w.from, w.res = s, c, r
	w.wake <- struct{}{}
}

// newWorker starts a worker's goroutine, idle: it waits for its wake
// channel.
func newWorker() *worker {
	w := &worker{wake: make(chan struct{}), num: strconv.FormatUint(workerSeq.Add(1), 10)}
	helpers.Add(1)
	go w.loop()
	return w
}
