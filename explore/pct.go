package explore

import (
	"math/rand/v2"

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
// comes first may get the higher or the lower of the reduced priorities. A bug of
// depth d among n goroutines and k steps is found with probability at
// least 1/(n·k^(d-1)) per execution.
//
// Steps are counted as decisions, the scheduling points where more than one
// goroutine can run, which tightens k. steps is the estimate, refined by
// the exploration loop from earlier executions. A goroutine that yields
// (sim.Yield, as a spin loop does) drops below every other goroutine, those
// lowered at change points included, so that spinning cannot starve the
// goroutine it waits for: strict priorities would otherwise livelock.
func PCT(seed uint64, depth, steps int) sched.Strategy {
	depth = max(depth, 1)
	steps = max(steps, 1)
	p := &pct{rng: newRand(seed)}
	for range depth - 1 {
		p.changes = append(p.changes, 1+p.rng.IntN(steps))
	}
	return p
}

// Priorities: fresh goroutines get base plus a random offset, change points
// 1..depth-1, yielders count down from 0, so all stay distinct in practice
// (ties go to the older goroutine).
const base = 1 << 42

type pct struct {
	rng     *rand.Rand
	prio    []int64 // by goroutine index
	changes []int   // change point i (priority i+1) falls on decision changes[i]
	floor   int64   // next priority for a yielding goroutine
}

func (p *pct) Spawned(g *sched.G) {
	for len(p.prio) <= g.Index() {
		p.prio = append(p.prio, 0)
	}
	p.prio[g.Index()] = base + p.rng.Int64N(1<<40)
}

func (p *pct) Next(d *sched.Decision) *sched.G {
	cur := d.Current.Index()
	for i, k := range p.changes {
		// The points are drawn independently, so which of them comes
		// first in time, and gets which low priority, is random too.
		if k == d.Index {
			p.prio[cur] = int64(i + 1)
		}
	}
	if d.Yield {
		p.prio[cur] = p.floor
		p.floor--
	}
	best := d.Enabled[0]
	for _, g := range d.Enabled[1:] {
		if p.prio[g.Index()] > p.prio[best.Index()] {
			best = g
		}
	}
	return best
}

func (p *pct) Choose(_ *sched.G, n int) int { return p.rng.IntN(n) }
