// Package explore searches the interleavings of a test for one that fails:
// strategies (a uniform random walk, PCT) drive the schedule controller of
// package sched over many executions, in parallel workers, until an
// execution fails or the budget ends. Minimize then shrinks the failing
// schedule to the fewest preemptions that still fail the same way.
package explore

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/weftdev/weft/sched"
)

// Strategy names.
const (
	StrategyPCT    = "pct"
	StrategyRandom = "random"
	// StrategyMix runs each execution as a random walk or as PCT, by a
	// coin flip of its seed.
	StrategyMix = "mix"
	// DefaultStrategy is the mix: on weft's examples the random walk finds
	// most bugs in fewer executions, PCT finds the deepest ones faster, and
	// alternating costs at most about twice the better of the two (see the
	// README's table).
	DefaultStrategy = StrategyMix
	// DefaultDepth is PCT's default bug depth: most concurrency bugs need
	// one or two ordering constraints (depth 2 or 3).
	DefaultDepth = 3
)

// Strategies lists the strategy names New accepts.
var Strategies = []string{StrategyMix, StrategyRandom, StrategyPCT}

// New returns the strategy named name for one execution. steps is PCT's
// estimate of the decisions of an execution.
func New(name string, seed uint64, depth, steps int, opts ...Option) (sched.Strategy, error) {
	switch name {
	case StrategyPCT:
		return PCT(seed, depth, steps, opts...), nil
	case StrategyRandom:
		return RandomWalk(seed, opts...), nil
	case StrategyMix:
		if seed&1 == 0 {
			return RandomWalk(seed, opts...), nil
		}
		return PCT(seed, depth, steps, opts...), nil
	}
	return nil, fmt.Errorf("explore: unknown strategy %q (want one of %v)", name, Strategies)
}

// Config is the budget and strategy of an exploration.
type Config struct {
	Strategy   string        // a name from Strategies; "" means DefaultStrategy
	Seed       uint64        // base seed: execution i runs with Seed(Seed, i)
	Depth      int           // PCT's bug depth; 0 means DefaultDepth
	Iterations int           // executions at most; 0: no limit (set Duration)
	Duration   time.Duration // wall time at most; 0: no limit
	// Lag is the largest lag an execution draws (see WithLag); 0 means
	// DefaultLag, and a negative value fires timers only when they are due.
	Lag time.Duration
	// Workers run executions in parallel; 0 means 1. The result does not
	// depend on it: the failing execution reported is the one of lowest
	// index, and every lower one ran.
	Workers int
	// Options configure every execution.
	Options sched.Options
	// Progress, if set, is called about every ProgressEvery with the count
	// of executions so far.
	Progress      func(elapsed time.Duration, executions int)
	ProgressEvery time.Duration
}

// A Finding is a failing execution found by Run.
type Finding struct {
	Result    *sched.Result
	Iteration int    // index of the execution, from 0
	Seed      uint64 // the execution's own seed
	Strategy  string
	Depth     int // PCT only
	Steps     int // PCT's estimate of decisions, for this execution
}

// Summary is the outcome of Run.
type Summary struct {
	Executions int
	Elapsed    time.Duration
	Finding    *Finding // nil if every execution passed
	// KeptRunning lists the goroutines that kept running after the test
	// returned in the first execution that had any (see
	// sched.Result.KeptRunning): no failure, but worth a line in the log.
	KeptRunning []sched.Waiting
}

// Seed returns the seed of execution i of an exploration with base seed
// base.
func Seed(base uint64, i int) uint64 { return mix(base, uint64(i)) }

// Run explores body's interleavings until an execution fails or the budget
// ends. body runs as the root goroutine of each execution.
func Run(body func(), cfg Config) (Summary, error) {
	if cfg.Strategy == "" {
		cfg.Strategy = DefaultStrategy
	}
	if cfg.Depth <= 0 {
		cfg.Depth = DefaultDepth
	}
	if _, err := New(cfg.Strategy, 0, cfg.Depth, 1); err != nil {
		return Summary{}, err
	}
	if cfg.Iterations <= 0 && cfg.Duration <= 0 {
		return Summary{}, fmt.Errorf("explore: no budget: set Iterations or Duration")
	}
	workers := max(cfg.Workers, 1)
	start := time.Now()
	var deadline time.Time
	if cfg.Duration > 0 {
		deadline = start.Add(cfg.Duration)
	}

	var (
		next     atomic.Int64 // next execution index to start
		ran      atomic.Int64
		estimate atomic.Int64 // PCT's estimate: the most decisions seen
		mu       sync.Mutex
		found    *Finding
		kept     []sched.Waiting
		limit    = int64(cfg.Iterations) // executions at or past limit do not start
	)
	if limit <= 0 {
		limit = 1<<63 - 1
	}
	var limitMu sync.Mutex
	stopAt := func(i int64) {
		limitMu.Lock()
		limit = min(limit, i)
		limitMu.Unlock()
	}
	under := func(i int64) bool {
		limitMu.Lock()
		defer limitMu.Unlock()
		return i < limit
	}

	done := make(chan struct{})
	if cfg.Progress != nil {
		every := cfg.ProgressEvery
		if every <= 0 {
			every = 3 * time.Second
		}
		go func() {
			tick := time.NewTicker(every)
			defer tick.Stop()
			for {
				select {
				case <-done:
					return
				case <-tick.C:
					cfg.Progress(time.Since(start), int(ran.Load()))
				}
			}
		}()
	}

	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				i := next.Add(1) - 1
				if !under(i) || (!deadline.IsZero() && time.Now().After(deadline)) {
					return
				}
				seed := Seed(cfg.Seed, int(i))
				steps := int(estimate.Load())
				strat, _ := New(cfg.Strategy, seed, cfg.Depth, steps, WithLag(lagOf(cfg)))
				r := sched.Run(body, strat, cfg.Options)
				ran.Add(1)
				if len(r.KeptRunning) > 0 {
					mu.Lock()
					if kept == nil {
						kept = r.KeptRunning
					}
					mu.Unlock()
				}
				for {
					e := estimate.Load()
					if int64(r.Decisions) <= e || estimate.CompareAndSwap(e, int64(r.Decisions)) {
						break
					}
				}
				if r.Failure != nil {
					stopAt(i)
					mu.Lock()
					if found == nil || int(i) < found.Iteration {
						found = &Finding{Result: r, Iteration: int(i), Seed: seed,
							Strategy: cfg.Strategy, Depth: cfg.Depth, Steps: steps}
					}
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	close(done)
	if found != nil && found.Strategy == StrategyRandom {
		found.Depth, found.Steps = 0, 0
	}
	return Summary{Executions: int(ran.Load()), Elapsed: time.Since(start), Finding: found, KeptRunning: kept}, nil
}

// lagOf returns the lag of cfg for WithLag.
func lagOf(cfg Config) time.Duration {
	switch {
	case cfg.Lag == 0:
		return DefaultLag
	case cfg.Lag < 0:
		return 0
	}
	return cfg.Lag
}

// DefaultWorkers is the parallelism of an exploration asked for with
// -explore: one worker per processor.
func DefaultWorkers() int { return runtime.GOMAXPROCS(0) }
