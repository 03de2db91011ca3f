package sim

import (
	"time"
	"unsafe"

	"github.com/weftdev/weft/internal/gls"
	"github.com/weftdev/weft/internal/race"
	"github.com/weftdev/weft/sched"
)

// Time under control is virtual, and passes as it can in Go (see package
// sched's clock): it starts at the execution's epoch (the wall clock's time
// when the test started, by default); every event takes sched.Tick; a timer
// fires when it is due, at a decision, or earlier at the strategy's choice
// while goroutines that could run have not (a timeout that fires before the
// work is done); and when no goroutine can run, the clock jumps straight to
// the earliest deadline, so a test that sleeps an hour finishes in
// microseconds. A goroutine that polls (Yield, a Select with a default
// that finds nothing) counts as waiting, so a polling loop lets a sleeper
// wake. In plain mode these functions are the time package's.

// Sleep pauses the calling goroutine for at least d.
func Sleep(d time.Duration) {
	g, t := who()
	if g != nil {
		if d <= 0 {
			g.StepReady(opSleep, 0)
			return
		}
		g.Sleep(opSleep, d)
		return
	}
	if t != nil {
		t.Op(nil)
	} else if gls.Active() && sched.SleepLeft(opSleep, d) {
		return // a goroutine that left an execution: on its clock
	}
	time.Sleep(d)
}

// Now returns the current time.
func Now() time.Time {
	g, t := who()
	if g != nil {
		g.StepReady(opNow, 0)
		return g.Now()
	}
	if t != nil {
		t.Op(nil)
	}
	return time.Now()
}

// Since returns the time elapsed since t.
func Since(t time.Time) time.Duration { return Now().Sub(t) }

// Until returns the duration until t.
func Until(t time.Time) time.Duration { return t.Sub(Now()) }

// A Timer is a single event in the future, like time.Timer: when it fires,
// the current time is sent on C (unless it was made by AfterFunc, which
// calls a function instead). As with Go 1.23's timers, no stale value is
// received from C after Stop or Reset returns.
type Timer struct {
	// C receives the time when the timer fires; nil for AfterFunc timers.
	C *Chan[time.Time]

	plain *time.Timer
	ctl   *sched.Timer
	rec   *recTimer
	fn    func() // AfterFunc's function, under control
	clock byte   // under control: what setting the timer released (see set)
}

// NewTimer returns a Timer that sends the current time on its channel after
// at least d.
func NewTimer(d time.Duration) *Timer {
	g, t := who()
	if g != nil {
		g.StepReady(opTimerNew, 0)
		tm := &Timer{C: NewChan[time.Time](1)}
		tm.ctl = g.NewTimer(d, deliver(g, tm.C, &tm.clock))
		set(&tm.clock)
		return tm
	}
	if t != nil {
		rt, c := recNewTimer(t, d, 0)
		return &Timer{C: c, rec: rt}
	}
	pt := time.NewTimer(d)
	return &Timer{C: &Chan[time.Time]{rc: pt.C, cap: 1}, plain: pt}
}

// deliver returns a timer's fire function that puts the firing time in c's
// buffer, unless a value is already waiting there. A receive of that value
// happens after the timer's last setting, as with Go's timers: it acquires
// what the setting released in clock.
//
//go:norace
func deliver(g *sched.G, c *Chan[time.Time], clock *byte) func() {
	s := c.state(g)
	s.timerClock = clock
	return (&delivery{g: g, s: s}).fire
}

// A delivery is a channel timer's firing.
type delivery struct {
	g *sched.G
	s *chanState[time.Time]
}

//go:norace
func (d *delivery) fire() {
	if len(d.s.buf) == 0 {
		d.s.buf = append(d.s.buf, d.g.Now())
		d.g.Touch(d.s.id)
	}
}

// set is the setting of a timer (made, or Reset) under control, for the
// race detector: it happens before the receive of the time the timer
// sends, or the start of AfterFunc's goroutine.
func set(clock *byte) { race.Release(unsafe.Pointer(clock)) }

// After waits for d to elapse and then sends the current time on the
// returned channel.
func After(d time.Duration) *Chan[time.Time] { return NewTimer(d).C }

// AfterFunc waits for d to elapse and then calls f in its own goroutine.
// Under control that goroutine is a child of the caller. The returned
// Timer's Stop cancels the call.
func AfterFunc(d time.Duration, f func()) *Timer {
	g, t := who()
	if g != nil {
		g.StepReady(opTimerNew, 0)
		tm := &Timer{fn: f}
		tm.ctl = g.NewTimer(d, tm.fire(g))
		set(&tm.clock)
		return tm
	}
	if t != nil {
		return &Timer{rec: recAfterFunc(t, d, f)}
	}
	return &Timer{plain: time.AfterFunc(d, f)}
}

// fire returns a controlled timer's fire function, set by g: the time sent
// on C, or AfterFunc's function called in a child of g.
func (t *Timer) fire(g *sched.G) func() {
	if t.C != nil {
		return deliver(g, t.C, &t.clock)
	}
	return func() {
		g.Spawn(func() {
			race.Acquire(unsafe.Pointer(&t.clock))
			t.fn()
		})
	}
}

// Stop prevents the timer from firing. It reports whether the call stopped
// it, false if it had already fired or been stopped.
func (t *Timer) Stop() bool {
	if t.ctl != nil {
		g := current()
		if g == nil {
			t.outside(opTimerStop)
			return false
		}
		g.StepReady(opTimerStop, 0)
		t.drain(g)
		return t.ctl.Stop()
	}
	if t.rec != nil {
		if t.C == nil {
			return t.rec.stopFunc(recording())
		}
		return t.rec.stop(recording())
	}
	return t.plain.Stop()
}

// Reset changes the timer to expire after d. It reports whether the timer
// had been active.
func (t *Timer) Reset(d time.Duration) bool {
	if t.ctl != nil {
		g := current()
		if g == nil {
			t.outside(opTimerReset)
			return false
		}
		g.StepReady(opTimerReset, 0)
		t.drain(g)
		set(&t.clock)
		if t.ctl.Stale(g) {
			// Made in an earlier execution and kept (a sync.Pool of
			// timers): set anew in this one, where it was not pending.
			t.ctl = g.NewTimer(d, t.fire(g))
			return false
		}
		return t.ctl.Reset(d)
	}
	if t.rec != nil {
		if t.C == nil {
			return t.rec.resetFunc(recording(), d)
		}
		return t.rec.reset(recording(), d)
	}
	return t.plain.Reset(d)
}

// outside tells the execution of a controlled timer, if it still runs,
// that a goroutine outside it stopped or reset the timer (see outside.go):
// the call does nothing and reports false, as for a timer of an execution
// that is over.
func (t *Timer) outside(op *sched.Op) {
	if gls.Active() {
		t.ctl.Outside(op, "*sim.Timer")
	}
}

// drain discards a fired value that was not received, as Go 1.23's Stop and
// Reset do.
//
//go:norace
func (t *Timer) drain(g *sched.G) {
	if t.C != nil {
		drain(g, t.C)
	}
}

// drain empties the buffer of a timer's channel c.
//
//go:norace
func drain(g *sched.G, c *Chan[time.Time]) {
	s := c.state(g)
	if len(s.buf) > 0 {
		s.buf = s.buf[:0]
		g.Touch(s.id)
	}
}

// A Ticker delivers the time on C at intervals, like time.Ticker. A slow
// receiver misses ticks rather than queueing them.
type Ticker struct {
	// C receives the ticks.
	C *Chan[time.Time]

	plain  *time.Ticker
	ctl    *sched.Timer
	rec    *recTimer
	period time.Duration
	clock  byte   // under control: what setting the ticker released (see set)
	put    func() // under control: delivers a tick
}

// NewTicker returns a Ticker that ticks every d. d must be positive.
func NewTicker(d time.Duration) *Ticker {
	if d <= 0 {
		panic("non-positive interval for NewTicker")
	}
	g, t := who()
	if g != nil {
		g.StepReady(opTimerNew, 0)
		tk := &Ticker{C: NewChan[time.Time](1), period: d}
		tk.put = deliver(g, tk.C, &tk.clock)
		tk.ctl = g.NewTimer(d, tk.tick)
		set(&tk.clock)
		return tk
	}
	if t != nil {
		rt, c := recNewTimer(t, d, d)
		return &Ticker{C: c, rec: rt, period: d}
	}
	pt := time.NewTicker(d)
	return &Ticker{C: &Chan[time.Time]{rc: pt.C, cap: 1}, plain: pt, period: d}
}

// Tick is NewTicker(d).C, for a ticker that is never stopped.
func Tick(d time.Duration) *Chan[time.Time] {
	if d <= 0 {
		return nil
	}
	return NewTicker(d).C
}

// Stop turns off the ticker.
func (tk *Ticker) Stop() {
	if tk.ctl != nil {
		if g := current(); g != nil {
			tk.stopControlled(g)
		} else if gls.Active() {
			tk.ctl.Outside(opTimerStop, "*sim.Ticker")
		}
		return
	}
	if tk.rec != nil {
		tk.rec.stop(recording())
		return
	}
	tk.plain.Stop()
}

// Reset stops the ticker and resets its period to d. d must be positive.
func (tk *Ticker) Reset(d time.Duration) {
	if d <= 0 {
		panic("non-positive interval for Ticker.Reset")
	}
	if tk.ctl != nil {
		if g := current(); g != nil {
			tk.resetControlled(g, d)
		} else if gls.Active() {
			tk.ctl.Outside(opTimerReset, "*sim.Ticker")
		}
		return
	}
	if tk.rec != nil {
		tk.rec.mu.Lock()
		tk.rec.period = d
		tk.rec.mu.Unlock()
		tk.rec.reset(recording(), d)
		return
	}
	tk.plain.Reset(d)
}

// tick is a controlled ticker's timer firing: a tick, and the next one set.
//
//go:norace
func (tk *Ticker) tick() {
	tk.put()
	tk.ctl.Reset(tk.period)
}

//go:norace
func (tk *Ticker) stopControlled(g *sched.G) {
	g.StepReady(opTimerStop, 0)
	tk.ctl.Stop()
	drain(g, tk.C)
}

//go:norace
func (tk *Ticker) resetControlled(g *sched.G, d time.Duration) {
	g.StepReady(opTimerReset, 0)
	tk.period = d
	set(&tk.clock)
	if tk.ctl.Stale(g) {
		// Made in an earlier execution and kept: set anew in this one.
		tk.put = deliver(g, tk.C, &tk.clock)
		tk.ctl = g.NewTimer(d, tk.tick)
	} else {
		tk.ctl.Reset(d)
	}
	drain(g, tk.C)
}
