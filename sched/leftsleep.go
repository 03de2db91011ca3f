package sched

import (
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/weftdev/weft/internal/race"
)

// Sleeps of goroutines that left an execution. A goroutine that the
// standard library started from one of the execution's (a server's
// handler) leaves it (see stray) and runs in plain mode, in real time;
// its sleeps would be real time too, against the execution's virtual
// clock: hedgedhttp's handlers sleep 100 ms while its client's hedging
// delays, 10 ms each, are the execution's timers, which fire when the
// clock says, and the test counts the requests sent before the first
// answer. So while the execution it left runs, such a goroutine sleeps on
// the execution's clock, as a visit (see Visit): when none of the
// execution's goroutines can run, the controller sets a timer of d on
// its clock, and performs the visit at a later stall, once the timer
// fired (the execution's goroutines away in the network are waited for
// in real time meanwhile, up to the timer's own wait, as for every timer:
// see awaitBack). The goroutine then sleeps what is left of d in real
// time, if any: a sleep is never shorter than Go's, only ordered with the
// execution's timers. Nor is it much longer: once d and visitLinger of
// real time passed, the goroutine withdraws its visit and goes on (within
// a round of visitRound), whatever the execution does:
// one of the execution's goroutines may wait for it outside weft's
// control (hedgedhttp's Close of a response's body), and the execution
// then does not stall to perform the visit. A goroutine started in plain mode before the
// execution (a purge loop) left none, and sleeps in real time.

// left holds the goroutines that left an execution still running, by
// goroutine id; n counts them, so that a plain Sleep while none did
// takes no lock.
var left struct {
	n  atomic.Int64
	mu sync.Mutex
	by map[int64]leftFrom
}

// leftFrom is the execution a goroutine left: its controller and number.
type leftFrom struct {
	c    *Controller
	exec uint64
}

// noteLeft records that the goroutine whose stack dump is stack left c's
// execution.
func (c *Controller) noteLeft(stack string) {
	id, ok := goid(stack)
	if !ok || race.Enabled {
		return
	}
	left.mu.Lock()
	defer left.mu.Unlock()
	if left.by == nil {
		left.by = make(map[int64]leftFrom)
	}
	if _, seen := left.by[id]; !seen {
		left.n.Add(1)
	}
	left.by[id] = leftFrom{c, c.seq}
}

// forgetLeft forgets the goroutines that left c's execution, which ends.
func (c *Controller) forgetLeft() {
	if left.n.Load() == 0 {
		return
	}
	left.mu.Lock()
	defer left.mu.Unlock()
	for id, f := range left.by {
		if f.c == c && f.exec == c.seq {
			delete(left.by, id)
			left.n.Add(-1)
		}
	}
}

// goid returns the goroutine id of a stack dump's first line, "goroutine
// 17 [running]:".
func goid(stack string) (int64, bool) {
	s, ok := strings.CutPrefix(stack, "goroutine ")
	if !ok {
		return 0, false
	}
	if i := strings.IndexByte(s, ' '); i > 0 {
		s = s[:i]
	}
	id, err := strconv.ParseInt(s, 10, 64)
	return id, err == nil
}

// SleepLeft sleeps d for a goroutine that left an execution still
// running, on the execution's clock (see above), and reports true; it
// reports false, having done nothing, if the calling goroutine left no
// running execution: the caller sleeps in real time. op is the sleep's
// operation, for a report. It is for package sim's Sleep, in plain mode
// while an execution runs in the process.
func SleepLeft(op *Op, d time.Duration) bool {
	if left.n.Load() == 0 || d <= 0 {
		return false
	}
	var buf [64]byte
	id, ok := goid(string(buf[:runtime.Stack(buf[:], false)]))
	if !ok {
		return false
	}
	left.mu.Lock()
	f, ok := left.by[id]
	left.mu.Unlock()
	if !ok {
		return false
	}
	start := time.Now()
	var t *Timer
	f.c.VisitOr(f.exec, op, 0, "clock", func(g *G) bool {
		if t == nil {
			t = g.NewTimer(d, nil)
		}
		return t.fired
	}, func() bool {
		// d of real time passed, and visitLinger more: the sleep is
		// over, whatever the execution does (one of its goroutines may
		// wait, outside weft's control, for this one: a response's
		// Close, which the watchdog reports after Options.BlockTimeout).
		// visitLinger leaves the controller, which waits in real time
		// for the timer's own wait while goroutines are away, the time
		// to fire it on a loaded machine.
		return time.Since(start) >= d+visitLinger
	})
	if rest := d - time.Since(start); rest > 0 {
		time.Sleep(rest)
	}
	return true
}
