package explore

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/weftdev/weft/sched"
)

// MinimizeConfig bounds a minimization.
type MinimizeConfig struct {
	MaxRuns  int           // replays at most; 0 means 2000
	Duration time.Duration // wall time at most; 0 means one minute (RunawayTime for a runaway)
	Options  sched.Options
	Lag      time.Duration // the exploration's largest lag (Config.Lag): how early a replayed clock choice may fire a timer
	// Stop, when closed, ends the minimization with the smallest failing
	// execution found so far (an interrupted run saves what it can).
	Stop <-chan struct{}
}

// RunawayTime bounds the minimization of a runaway: each replay runs the
// whole step budget, and any runaway is the same failure, so a few replays
// are all it takes to find out whether fewer choices still run away.
const RunawayTime = 5 * time.Second

// Minimized is the outcome of Minimize.
type Minimized struct {
	Result *sched.Result // the smallest failing execution found
	Before int           // preemptions of the original schedule
	After  int           // preemptions of Result's schedule
	Runs   int           // replays tried
}

// Minimize shrinks a failing execution's schedule to the fewest preemptions
// (switches away from a goroutine that could have continued), then the
// fewest choices, that still fail the same way: the same Failure.Signature.
//
// It works in two phases. First, delta debugging over the choice list:
// removing choices makes the replay follow the default policy there (the
// running goroutine continues), so fewer choices mean fewer context
// switches. Each candidate is replayed; one that fails the same way is kept
// in the form the replay actually took (its own choice list), which can only
// be smaller. Removal cannot redirect a switch, though, so the second phase
// searches breadth first the schedules of one, then two choices, built from
// the decision points of the executions themselves, as a preemption-bounded
// model checker would, until the budget ends or nothing smaller remains.
func Minimize(body func(), failing *sched.Result, cfg MinimizeConfig) Minimized {
	if cfg.MaxRuns <= 0 {
		cfg.MaxRuns = 2000
	}
	if cfg.Duration <= 0 {
		cfg.Duration = time.Minute
	}
	if failing.Failure.Kind == sched.Runaway {
		cfg.Duration = min(cfg.Duration, RunawayTime)
	} else if failing.Steps > 0 {
		// A replay that runs far longer than the failing execution is not
		// going to fail the same way: bound it, so that a schedule that
		// livelocks under the default policy costs little.
		bound := 2*failing.Steps + 1<<14
		if failing.Overran {
			// It failed past its budget of explored events: its replays
			// keep that budget, which their choices are made in, and
			// run on unexplored as it did, to the bound. Without the
			// overrun each was a runaway (karlseguin/ccache's leak after
			// 9.4 million events kept all 5.8 million of its choices).
			budget := cmp.Or(cfg.Options.MaxSteps, sched.DefaultMaxSteps)
			cfg.Options.Overruns = max((bound+budget-1)/budget, 1)
		} else {
			cfg.Options.MaxSteps = min(max(cfg.Options.MaxSteps, sched.DefaultMaxSteps), bound)
			cfg.Options.Overruns = -1
		}
	}
	deadline := time.Now().Add(cfg.Duration)
	sig := failing.Failure.Signature()
	best := failing
	m := Minimized{Before: failing.Schedule().Preemptions()}
	budget := func() bool {
		select {
		case <-cfg.Stop:
			return false
		default:
		}
		return m.Runs < cfg.MaxRuns && time.Now().Before(deadline)
	}
	try := func(s sched.Schedule) bool {
		m.Runs++
		r := Execute(body, Follow(s, ExplorationLag(cfg.Lag)), cfg.Options)
		if r.Failure == nil || r.Failure.Signature() != sig || !smaller(r.Schedule(), best.Schedule()) {
			return false
		}
		best = r
		return true
	}

	// A goroutine blocked outside weft's control costs a block timeout per
	// replay, and its schedule is not the cause: keep it as found. So is a
	// goroutine outside the execution, which no replay runs again.
	uncontrolled := failing.Failure.Kind == sched.Blocked || failing.Failure.Kind == sched.Outside
	if len(best.Schedule()) > 0 && !uncontrolled && !try(nil) {
		chunk := max(len(best.Schedule())/2, 1)
		for budget() && len(best.Schedule()) > 0 {
			removed := false
			for i := 0; i < len(best.Schedule()) && budget(); {
				if try(without(best.Schedule(), i, chunk)) {
					removed = true // try the same place again: the list shifted
					continue
				}
				i += chunk
			}
			if chunk == 1 && !removed {
				break
			}
			if !removed {
				chunk /= 2
			}
			chunk = max(min(chunk, len(best.Schedule())/2), 1)
		}
	}
	if !uncontrolled && best.Schedule().Preemptions() > 0 {
		search(body, cfg.Options, lagOf(cfg.Lag), len(best.Schedule())-1, budget, func(s sched.Schedule) bool { return try(s) })
	}
	m.Result = best
	m.After = best.Schedule().Preemptions()
	return m
}

// search runs the schedules of at most maxChoices choices breadth first:
// the default execution, then every single choice at one of its decision
// points, then every second choice after the first, and so on. It stops at
// the first schedule accept takes, or when budget says so.
func search(body func(), opts sched.Options, lag time.Duration, maxChoices int, budget func() bool, accept func(sched.Schedule) bool) {
	level := []sched.Schedule{nil}
	for k := 0; k < maxChoices && len(level) > 0 && budget(); k++ {
		var next []sched.Schedule
		for _, s := range level {
			if !budget() {
				return
			}
			rec := &recorder{Strategy: Follow(s, WithLag(lag)), after: len(s)}
			Execute(body, rec, opts)
			for _, alt := range rec.alternatives() {
				if !budget() {
					return
				}
				cand := append(s[:len(s):len(s)], alt)
				if accept(cand) {
					return
				}
				next = append(next, cand)
			}
		}
		level = next
	}
}

// recorder wraps a replay strategy and notes the decision points an
// execution passes once the schedule is used up: where another goroutine
// could have run, or another value been picked.
type recorder struct {
	sched.Strategy
	after  int // choices of the schedule: points are noted from then on
	seen   int
	points []sched.Choice // each alternative, as a choice
}

func (r *recorder) Next(d *sched.Decision) *sched.G {
	next := r.Strategy.Next(d)
	if r.used() {
		cur := d.Current
		for _, g := range d.Enabled() {
			if g != next {
				r.points = append(r.points, sched.Choice{Kind: sched.RunChoice, G: cur.ID(), N: cur.Events(), K: d.Sub,
					Next: g.ID(), Preempt: d.CanContinue() && g != cur})
			}
		}
		if d.Timer && next != sched.Clock {
			r.points = append(r.points, sched.Choice{Kind: sched.RunChoice, G: cur.ID(), N: cur.Events(), K: d.Sub,
				Next: sched.Clock.ID(), Preempt: d.CanContinue() && d.TimerIn > 0})
		}
	}
	if next != d.Default {
		r.seen++
	}
	return next
}

// Horizon passes on the followed schedule's horizon (Follower.Horizon).
func (r *recorder) Horizon() time.Duration { return r.Strategy.(sched.Horizon).Horizon() }

func (r *recorder) Choose(g *sched.G, n int) int {
	v := r.Strategy.Choose(g, n)
	if r.used() {
		for _, alt := range pickAlternatives(v, n) {
			r.points = append(r.points, sched.Choice{Kind: sched.PickChoice, G: g.ID(), N: g.Events(), Value: alt, Of: n})
		}
	}
	if v != 0 {
		r.seen++
	}
	return v
}

// pickAlternatives returns the values to try instead of v among n: all of
// them for a small choice, the ends and the neighbours of v for a wide one
// (a random number), which would otherwise swamp the search.
func pickAlternatives(v, n int) []int {
	var out []int
	if n <= 8 {
		for alt := range n {
			if alt != v {
				out = append(out, alt)
			}
		}
		return out
	}
	for _, alt := range []int{0, v - 1, v + 1, n - 1} {
		if alt >= 0 && alt < n && alt != v && !slices.Contains(out, alt) {
			out = append(out, alt)
		}
	}
	return out
}

// used reports whether the replayed schedule's choices have all been made.
func (r *recorder) used() bool { return r.seen >= r.after }

// alternatives returns the recorded alternatives, non-preemptive ones first:
// they cost nothing in the measure Minimize reduces.
func (r *recorder) alternatives() []sched.Choice {
	out := make([]sched.Choice, 0, len(r.points))
	for _, c := range r.points {
		if !c.Preempt {
			out = append(out, c)
		}
	}
	for _, c := range r.points {
		if c.Preempt {
			out = append(out, c)
		}
	}
	return out
}

// smaller orders schedules by preemptions, then by length.
func smaller(a, b sched.Schedule) bool {
	pa, pb := a.Preemptions(), b.Preemptions()
	if pa != pb {
		return pa < pb
	}
	return len(a) < len(b)
}

func without(s sched.Schedule, i, n int) sched.Schedule {
	out := make(sched.Schedule, 0, len(s))
	out = append(out, s[:i]...)
	return append(out, s[min(i+n, len(s)):]...)
}

// Verify replays a schedule runs times and checks that every replay fails
// the same way with the same event hash as want: the test is deterministic
// under weft's control. It returns the last replay and, if some replay
// differed, what differed.
// follow are the options of the Follower, the exploration's lag (WithLag).
func Verify(body func(), s sched.Schedule, want *sched.Result, runs int, opts sched.Options, follow ...Option) (*sched.Result, error) {
	var last *sched.Result
	for i := range runs {
		rp := Follow(s, follow...)
		last = Execute(body, rp, opts)
		if last.Hash != want.Hash || last.Failure.Signature() != want.Failure.Signature() {
			return last, fmt.Errorf("replay %d of %d differed: %s (event hash %#x) where the original gave %s (event hash %#x); the test depends on something weft does not control (map iteration order, real time, the global math/rand, a plain go statement, I/O)",
				i+1, runs, last.Failure.Summary(), last.Hash, want.Failure.Summary(), want.Hash)
		}
	}
	return last, nil
}
