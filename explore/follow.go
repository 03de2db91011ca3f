package explore

import (
	"fmt"
	"time"

	"github.com/weftdev/weft/sched"
)

// Follow returns a strategy that follows a schedule: at the event where a
// choice was made, it makes the same choice; everywhere else it follows the
// default policy. Choices are matched by the identity of their event
// (goroutine lineage and event counter), not by their position, so a
// schedule saved before the code changed applies as far as it still can:
// choices whose event never comes, whose goroutine cannot run, or whose
// call site moved are reported by Drift, and the execution continues
// deterministically.
//
// A recorded clock choice fires a timer early only within the largest lag
// an exploration draws (WithLag, DefaultLag if not given), as the
// strategies that made the schedule could: a schedule that minimization
// or a code change moved to another event never fires a timer that is
// far ahead (a test's 500 ms timeout) while goroutines could still run.
func Follow(s sched.Schedule, opts ...Option) *Follower {
	r := &Follower{schedule: s, at: make(map[key]int, len(s)), horizon: options(opts).lag}
	for i, c := range s {
		k := key{c.Kind, c.G, c.N, c.K}
		if _, dup := r.at[k]; !dup {
			r.at[k] = i
		}
	}
	return r
}

// A Follower is the strategy returned by Follow.
type Follower struct {
	horizon  time.Duration
	schedule sched.Schedule
	at       map[key]int
	next     int // choices before it are consumed or skipped
	drift    []string
}

type key struct {
	kind sched.ChoiceKind
	g    string
	n, k int
}

// Drift describes where the execution departed from the schedule, one line
// each; empty when the schedule applied exactly.
func (r *Follower) Drift() []string {
	out := r.drift
	if r.next < len(r.schedule) {
		out = append(out[:len(out):len(out)], fmt.Sprintf("%d choice(s) of the schedule were never reached, from %s on",
			len(r.schedule)-r.next, describe(r.schedule[r.next])))
	}
	return out
}

func (r *Follower) Spawned(*sched.G) {}

func (r *Follower) Next(d *sched.Decision) *sched.G {
	c, ok := r.match(sched.RunChoice, d.Current, d.Sub, !d.Current.Done())
	if !ok {
		return d.Default
	}
	if c.Next == sched.Clock.ID() {
		if d.Timer {
			return sched.Clock
		}
		r.drift = append(r.drift, fmt.Sprintf("%s: no timer is due there, nor within the lag; ran %s instead", describe(c), d.Default.ID()))
		return d.Default
	}
	for _, g := range d.Enabled() {
		if g.ID() == c.Next {
			return g
		}
	}
	r.drift = append(r.drift, fmt.Sprintf("%s: goroutine %s cannot run there; ran %s instead", describe(c), c.Next, d.Default.ID()))
	return d.Default
}

func (r *Follower) Choose(g *sched.G, n int) int {
	c, ok := r.match(sched.PickChoice, g, 0, true)
	if !ok {
		return 0
	}
	if c.Value >= n {
		r.drift = append(r.drift, fmt.Sprintf("%s: value %d out of range, now %d choices; picked 0", describe(c), c.Value, n))
		return 0
	}
	return c.Value
}

// match finds the choice made at g's current event, consuming it and
// reporting the choices it skips.
func (r *Follower) match(kind sched.ChoiceKind, g *sched.G, sub int, live bool) (sched.Choice, bool) {
	i, ok := r.at[key{kind, g.ID(), g.Events(), sub}]
	if !ok || i < r.next {
		return sched.Choice{}, false
	}
	for _, skipped := range r.schedule[r.next:i] {
		r.drift = append(r.drift, describe(skipped)+": event not reached in order; skipped")
	}
	r.next = i + 1
	c := r.schedule[i]
	if live && c.Site != "" {
		if site := g.Site(); site != "" && site != c.Site {
			r.drift = append(r.drift, fmt.Sprintf("%s: the event moved to %s", describe(c), site))
		}
	}
	return c, true
}

func describe(c sched.Choice) string {
	s := fmt.Sprintf("goroutine %s event %d", c.G, c.N)
	if c.K > 0 {
		s += fmt.Sprintf(" (decision %d there)", c.K+1)
	}
	if c.Op != "" {
		s += " (" + c.Op
		if c.Site != "" {
			s += " at " + c.Site
		}
		s += ")"
	}
	return s
}

// Horizon implements sched.Horizon: the clock is a choice only for a timer
// due, or due within the largest lag.
func (r *Follower) Horizon() time.Duration { return r.horizon }
