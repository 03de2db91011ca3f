package explore

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/weftdev/weft/sched"
)

// PCT returns the probabilistic concurrency testing strategy of Burckhardt,
// Kothari, Musuvathi and Nagarakatte (ASPLOS 2010) for bugs of depth depth.
//
// Every goroutine gets a random priority when it is created, all of them
// at least depth; the highest-priority enabled goroutine always runs. Before
// the execution, depth-1 change points are drawn uniformly over the
// estimated number of steps; when the i-th is reached, the running
// goroutine's priority drops to i, below every initial priority. The points
// are drawn independently, so their order in time is random: the one that
// comes first may get the higher or the lower of the reduced priorities. A
// bug of depth d among n goroutines and k steps is found with probability
// at least 1/(n·k^(d-1)) per execution.
//
// Steps are counted as decisions, the scheduling points where more than one
// goroutine can run, which tightens k. steps is the estimate, refined by
// the exploration loop from earlier executions. A goroutine that yields
// (sim.Yield, as a spin loop does) drops below every other goroutine, those
// lowered at change points included, so that spinning cannot starve the
// goroutine it waits for.
//
// The clock is one more participant with a random priority: when a timer
// is due, or due within what is left of the execution's lag (see WithLag),
// it fires if the clock's priority is above every enabled goroutine's. So an execution in
// which the clock ranks high fires timeouts as early as it may, and one in
// which it ranks low lets the work finish first.
//
// Fair PCT: strict priorities would let a goroutine that never blocks (a
// worker looping until told to stop) starve the others for good. The
// controller names a goroutine that waited FairBound events
// (sched.Decision.Starving); PCT runs it, and from then on the execution
// is a uniform random walk, as Coyote's fair PCT ends its prioritized
// prefix: one forced step every few thousand events would let a starved
// goroutine that has a thousand steps to go exceed any budget. PCT's
// guarantee holds for the executions where no goroutine waits that long.
func PCT(seed uint64, depth, steps int, opts ...Option) sched.Strategy {
	p := &pct{}
	p.init(seed, depth, steps, options(opts).lag)
	return p
}

// init makes p the strategy PCT returns, in place: for p's first
// execution or a later one (see recycler).
func (p *pct) init(seed uint64, depth, steps int, maxLag time.Duration) {
	*p = pct{}
	depth = max(depth, 1)
	steps = max(steps, 1)
	p.rng = p.randIn(seed)
	p.changes = p.changeBuf[:0]
	for range depth - 1 {
		p.changes = append(p.changes, 1+p.rng.IntN(steps))
	}
	p.clock = p.initial()
	p.lag = lag(drawLag(p.rng, maxLag))
}

// Priorities: fresh goroutines get base plus a random offset, change points
// 1..depth-1, yielders count down from 0, so all stay distinct in practice
// (ties go to the older goroutine).
const base = 1 << 42

type pct struct {
	rng     *rand.Rand
	changes []int // change point i (priority i+1) falls on decision changes[i]
	floor   int64 // next priority for a yielding goroutine
	clock   int64 // the clock's priority
	lag     lag
	fair    bool // a goroutine starved: the rest is a random walk
	index   int  // the index of the last decision asked of Next

	// What rng and changes point to, in the strategy: one allocation
	// instead of four per execution.
	src       rand.PCG
	rand      rand.Rand
	changeBuf [4]int
}

// randIn makes p's random source in p itself.
func (p *pct) randIn(seed uint64) *rand.Rand { return randIn(&p.src, &p.rand, seed) }

func (p *pct) initial() int64 { return base + p.rng.Int64N(1<<40) }

func (p *pct) Spawned(g *sched.G) { g.SetPriority(p.initial()) }

func (p *pct) Next(d *sched.Decision) *sched.G {
	cur := d.Current
	p.index = d.Index
	for i, k := range p.changes {
		// The points are drawn independently, so which of them comes
		// first in time, and gets which low priority, is random too.
		if k == d.Index {
			cur.SetPriority(int64(i + 1))
		}
	}
	if d.Yield {
		cur.SetPriority(p.floor)
		p.floor--
	}
	if s := d.Starving(); s != nil {
		p.fair = true
		return s
	}
	if p.fair {
		return pickUniform(p.rng, &p.lag, d)
	}
	best := d.Highest()
	if p.lag.allows(d) && p.clock > best.Priority() {
		return p.lag.fire(d)
	}
	return best
}

func (p *pct) Choose(_ *sched.G, n int) int { return p.rng.IntN(n) }

// Steady implements sched.Prioritizer: up to the next change point, unless
// a goroutine starved, PCT runs the highest priority whenever nothing
// yields and the clock is not offered.
func (p *pct) Steady() int {
	if p.fair {
		return 0
	}
	next := math.MaxInt
	for _, k := range p.changes {
		if k > p.index {
			next = min(next, k)
		}
	}
	return next
}

// Horizon implements sched.Horizon (see randomWalk.Horizon).
func (p *pct) Horizon() time.Duration { return time.Duration(p.lag) }
