package sim

import (
	"sync"
	"time"

	"github.com/weftdev/weft/record"
)

// Time recording is real time, as in plain mode, but every operation
// counts as under control. A timer's channel is a channel of the run (a
// monitor, as every recorded channel), into which a runtime timer delivers;
// an AfterFunc's function runs on a goroutine of the run, a child of the
// goroutine that armed the timer (made or reset it), which waits for the
// timer and ends at Stop.

// A recTimer is a Timer or Ticker recording.
type recTimer struct {
	mu      sync.Mutex
	s       *chanState[time.Time] // the channel's state; nil for AfterFunc
	r       record.Recorder
	rt      *time.Timer
	period  time.Duration // a Ticker's
	stopped bool
	// AfterFunc: f, and the kick of the goroutine waiting to run it.
	f     func()
	kick  chan bool // true: run f; false: stopped
	fired bool
}

// recNewTimer makes a timer (period 0) or ticker of t's run delivering on
// a new channel.
func recNewTimer(t *record.Thread, d, period time.Duration) (*recTimer, *Chan[time.Time]) {
	t.Op(nil)
	c := &Chan[time.Time]{cap: 1}
	rt := &recTimer{s: c.recState(t), r: t.Recorder(), period: period}
	rt.mu.Lock()
	rt.arm(d)
	rt.mu.Unlock()
	return rt, c
}

// arm starts the runtime timer for a delivery after d; rt.mu is held.
func (rt *recTimer) arm(d time.Duration) {
	rt.s.mu.Lock()
	gen := rt.s.gen
	rt.s.mu.Unlock()
	rt.stopped = false
	rt.rt = time.AfterFunc(d, func() {
		rt.s.recDeliver(rt.r, time.Now(), gen)
		rt.mu.Lock()
		defer rt.mu.Unlock()
		if rt.period > 0 && !rt.stopped {
			rt.s.mu.Lock()
			same := rt.s.gen == gen
			rt.s.mu.Unlock()
			if same {
				rt.rt.Reset(rt.period)
			}
		}
	})
}

// stop stops a channel timer, discarding an undelivered value.
func (rt *recTimer) stop(t *record.Thread) bool {
	if t != nil {
		t.Op(nil)
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	rt.s.recDrain()
	rt.stopped = true
	return rt.rt.Stop()
}

// reset re-arms a channel timer after d.
func (rt *recTimer) reset(t *record.Thread, d time.Duration) bool {
	if t != nil {
		t.Op(nil)
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	active := rt.rt.Stop()
	rt.s.recDrain()
	rt.arm(d)
	return active
}

// recAfterFunc makes an AfterFunc timer of t's run.
func recAfterFunc(t *record.Thread, d time.Duration, f func()) *recTimer {
	t.Op(nil)
	rt := &recTimer{f: f}
	rt.mu.Lock()
	rt.armFunc(t, d)
	rt.mu.Unlock()
	return rt
}

// armFunc starts the goroutine that waits for the timer, as t's child;
// rt.mu is held.
func (rt *recTimer) armFunc(t *record.Thread, d time.Duration) {
	kick := make(chan bool, 1)
	rt.kick, rt.fired, rt.stopped = kick, false, false
	f := rt.f
	t.Go(func() {
		if <-kick {
			f()
		}
	})
	rt.rt = time.AfterFunc(d, func() {
		rt.mu.Lock()
		defer rt.mu.Unlock()
		if rt.kick == kick && !rt.stopped && !rt.fired {
			rt.fired = true
			kick <- true
		}
	})
}

// stopFunc stops an AfterFunc timer; its waiting goroutine ends.
func (rt *recTimer) stopFunc(t *record.Thread) bool {
	if t != nil {
		t.Op(nil)
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.fired || rt.stopped {
		return false
	}
	rt.stopped = true
	rt.rt.Stop()
	rt.kick <- false
	return true
}

// resetFunc re-arms an AfterFunc timer: a new waiting goroutine, a child of
// t, if the old one ended.
func (rt *recTimer) resetFunc(t *record.Thread, d time.Duration) bool {
	if t != nil {
		t.Op(nil)
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if !rt.fired && !rt.stopped {
		rt.rt.Reset(d)
		return true
	}
	if t == nil {
		return false
	}
	rt.armFunc(t, d)
	return false
}
