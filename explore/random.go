package explore

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/weftdev/weft/sched"
)

// RandomWalk returns the uniform random walk: at every decision it runs one
// of the enabled goroutines chosen uniformly, or fires the earliest timer
// if it is due or within what is left of the execution's lag (see
// WithLag), as one more choice among them; and it picks data choices
// uniformly. It is fair with probability one: a goroutine enabled at every
// decision runs.
func RandomWalk(seed uint64, opts ...Option) sched.Strategy {
	r := &randomWalk{}
	r.init(seed, options(opts).lag)
	return r
}

type randomWalk struct {
	rng *rand.Rand
	lag lag

	// What rng points to, in the strategy: one allocation instead of
	// three per execution.
	src  rand.PCG
	rand rand.Rand
}

// init makes r the strategy RandomWalk returns, in place: for r's first
// execution or a later one (see recycler).
func (r *randomWalk) init(seed uint64, maxLag time.Duration) {
	*r = randomWalk{}
	r.rng = randIn(&r.src, &r.rand, seed)
	r.lag = lag(drawLag(r.rng, maxLag))
}

func (r *randomWalk) Spawned(*sched.G) {}

func (r *randomWalk) Next(d *sched.Decision) *sched.G {
	if s := d.Starving(); s != nil {
		return s
	}
	return pickUniform(r.rng, &r.lag, d)
}

// pickUniform runs one of d's candidates chosen uniformly, or fires the
// clock as one more choice if the lag allows it.
func pickUniform(rng *rand.Rand, l *lag, d *sched.Decision) *sched.G {
	n := d.Len()
	if l.allows(d) && rng.IntN(n+1) == n {
		return l.fire(d)
	}
	return d.At(rng.IntN(n))
}

func (r *randomWalk) Choose(_ *sched.G, n int) int { return r.rng.IntN(n) }

// Horizon implements sched.Horizon: the clock is a choice only for a timer
// within what is left of the lag.
func (r *randomWalk) Horizon() time.Duration { return time.Duration(r.lag) }

// DefaultLag is how far ahead of the work a strategy may fire timers by
// default. Go runs a goroutine that can run whenever it likes: a timer may
// fire, and a sleep end, while another goroutine still has work to do, if
// that goroutine is slow to be scheduled. Each execution draws its own lag
// (see WithLag), a budget of virtual time by which the clock may run ahead
// of the work in all: one stall of that length, or several adding up to
// it. So both "the timeout fires first" and "the work finishes first" are
// explored, and a timeout far longer than the lag (a test's one-second
// guard against a hang) never fires while the work can still run.
const DefaultLag = 5 * time.Millisecond

// An Option tunes a strategy.
type Option func(*strategyOptions)

type strategyOptions struct {
	lag time.Duration
}

// WithLag sets the largest lag an execution draws (DefaultLag if not
// given): half the executions have none, and fire a timer only when it is
// due; the others draw one between a microsecond and max, log-uniformly,
// and may fire the earliest timer before its deadline, moving the clock to
// it while goroutines that could run have not, as long as the jumps ahead
// add up to no more than the lag. Zero disables early firing.
func WithLag(max time.Duration) Option { return func(o *strategyOptions) { o.lag = max } }

func options(opts []Option) strategyOptions {
	if len(opts) == 0 {
		// Without options, o does not escape to the heap through f.
		return strategyOptions{lag: DefaultLag}
	}
	o := strategyOptions{lag: DefaultLag}
	for _, f := range opts {
		f(&o)
	}
	return o
}

// A lag is what remains of an execution's budget of early firing.
type lag time.Duration

// allows reports whether the decision may fire the clock: a timer is due,
// or due within the lag.
func (l *lag) allows(d *sched.Decision) bool {
	return d.Timer && d.TimerIn <= time.Duration(*l)
}

// fire returns the Clock, spending the lag on a jump ahead.
func (l *lag) fire(d *sched.Decision) *sched.G {
	if d.TimerIn > 0 {
		*l -= lag(d.TimerIn)
	}
	return sched.Clock
}

// drawLag draws an execution's lag: none half the time, otherwise
// log-uniform between a microsecond and max.
func drawLag(rng *rand.Rand, max time.Duration) time.Duration {
	if rng.IntN(2) == 0 || max < time.Microsecond {
		return 0
	}
	lo, hi := math.Log(float64(time.Microsecond)), math.Log(float64(max))
	return time.Duration(math.Exp(lo + rng.Float64()*(hi-lo)))
}

// randIn makes the deterministic generator of one execution in src and
// r, which its strategy holds, and returns r.
func randIn(src *rand.PCG, r *rand.Rand, seed uint64) *rand.Rand {
	src.Seed(seed, seed^golden)
	*r = *rand.New(src)
	return r
}

// golden is 2^64 divided by the golden ratio: it spreads seeds.
const golden = 0x9e3779b97f4a7c15

// mix derives well-spread seeds from a base and an index (SplitMix64).
func mix(base, i uint64) uint64 {
	z := base + (i+1)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}
