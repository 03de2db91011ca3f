package explore

import (
	"time"

	"github.com/weftdev/weft/sched"
)

// Recycler exposes the recycler of strategies to the tests.
type Recycler = recycler

// Strategy is recycler.strategy, for the tests.
func (r *recycler) Strategy(name string, seed uint64, depth, steps int, lag time.Duration) sched.Strategy {
	return r.strategy(name, seed, depth, steps, lag)
}
