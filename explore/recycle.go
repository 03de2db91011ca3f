package explore

import (
	"time"

	"github.com/weftdev/weft/sched"
)

// A recycler makes the strategy of each execution a worker runs, as New
// does, in memory it reuses: the strategy it returned last is done with
// when it is asked for the next one. The strategy decides exactly as New's
// would (TestRecycledStrategies).
type recycler struct {
	pct  pct
	walk randomWalk
}

// strategy returns the strategy New returns for name, seed, depth and
// steps, with ExplorationLag(lag); nil for an unknown name.
func (r *recycler) strategy(name string, seed uint64, depth, steps int, lag time.Duration) sched.Strategy {
	switch {
	case usesPCT(name, seed):
		r.pct.init(seed, depth, steps, lagOf(lag))
		return &r.pct
	case name == StrategyRandom || name == StrategyMix:
		r.walk.init(seed, lagOf(lag))
		return &r.walk
	}
	return nil
}
