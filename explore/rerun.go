package explore

import "github.com/weftdev/weft/sched"

// Rerun runs execution i of the exploration cfg describes once more, in the
// calling process, with opts (a trace with stacks, say) in place of
// cfg.Options. estimate stands for PCT's estimate of decisions, which the
// exploration took from the executions before i: with another one, PCT's
// execution may differ from the exploration's. Profiles sample an
// exploration's executions with it.
func Rerun(body func(), cfg Config, i, estimate int, opts sched.Options) (*sched.Result, error) {
	if cfg.Strategy == "" {
		cfg.Strategy = DefaultStrategy
	}
	if cfg.Depth <= 0 {
		cfg.Depth = DefaultDepth
	}
	p := Plan{Strategy: cfg.Strategy, Seed: cfg.Seed, Depth: cfg.Depth, Shard: cfg.Shard, Shards: cfg.Shards}
	strat, err := New(p.Strategy, p.seed(i), p.Depth, estimate, ExplorationLag(cfg.Lag))
	if err != nil {
		return nil, err
	}
	return Execute(body, strat, opts), nil
}
