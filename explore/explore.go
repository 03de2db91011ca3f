// Package explore searches the interleavings of a test for one that fails:
// strategies (a uniform random walk, PCT) drive the schedule controller of
// package sched over many executions, in workers that each run one
// execution at a time (the calling process, and worker processes as Go's
// fuzzing has), until an execution fails or the budget ends. The outcome
// does not depend on the number of workers. Minimize then shrinks the
// failing schedule to the fewest preemptions that still fail the same way.
package explore

import (
	"fmt"
	"runtime"
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

// usesPCT reports whether the execution of the given seed runs PCT, whose
// change points depend on the estimate of decisions.
func usesPCT(name string, seed uint64) bool {
	return name == StrategyPCT || name == StrategyMix && seed&1 == 1
}

// Config is the budget and strategy of an exploration.
type Config struct {
	Strategy   string        // a name from Strategies; "" means DefaultStrategy
	Seed       uint64        // base seed: execution i runs with Seed(Seed, i)
	Depth      int           // PCT's bug depth; 0 means DefaultDepth
	Iterations int           // executions at most; 0: no limit (set Duration)
	Duration   time.Duration // wall time at most; 0: no limit
	// Events bounds the exploration in events (sched.Result.Steps): no
	// execution starts once those before it ran this many, the first
	// always runs. 0: no limit. With one worker the executions that run
	// depend on nothing but the seeds, unlike Duration's: an execution's
	// events are the same on every machine.
	Events int
	// Lag is the largest lag an execution draws (see WithLag); 0 means
	// DefaultLag, and a negative value fires timers only when they are due.
	Lag time.Duration
	// Workers run executions, one at a time each: the calling process and
	// Workers-1 started by Spawn. 0 means 1. The outcome does not depend on
	// it: execution i runs as the i-th execution of one sequential
	// exploration would (with PCT's estimate of decisions taken from the
	// executions before it), the failing execution reported is the one of
	// lowest index, and every lower one ran.
	Workers int
	// Spawn starts one more worker, a process (see StartProcess), with
	// GOMAXPROCS=1 if oneProc is set. With it, the calling process runs the
	// first executions while Workers processes start, then only commits
	// and judges. Without it, Run uses the calling process alone.
	Spawn func(oneProc bool) (Worker, error)
	// Accept judges each failing execution, in index order, in the calling
	// process while no other worker runs: true ends the exploration with
	// it; false goes on, looking for another one (a failure that does not
	// replay is not the one to report). Nil accepts every failure.
	Accept func(*Finding) bool
	// Continue makes the exploration go on past failures until the budget
	// ends, as a nightly run does: Accept judges the first failure of each
	// signature, in index order, and its answer ends nothing; a later
	// failure with a signature already judged, or one of Known, is only
	// counted (Summary.Repeats), and the worker that met it goes on.
	Continue bool
	// Known are signatures of failures a continued exploration does not
	// judge: the failures its test's corpus already holds.
	Known []string
	// Shard and Shards split the seed space among independent explorations
	// (processes, machines): with Shards > 1, execution i runs with the
	// seed of execution i*Shards+Shard of the whole exploration, so that
	// the shards of one base seed run disjoint sets of executions, which
	// together make the whole (PCT's change points, which depend on the
	// executions before, aside).
	Shard, Shards int
	// Stop, when closed, ends the exploration early: no execution starts
	// any more, the chunks running finish, and the failures found so far
	// are judged in index order, as the budget's end would have them.
	Stop <-chan struct{}
	// Executed, if set, sees every execution the calling process runs
	// (not those of worker processes), in the calling process. The Result
	// is valid during the call only: the memory of an execution that is
	// not a Finding serves the next one (see sched.Result.Release). It is
	// called on a goroutine of weft's own, between two executions (see
	// sched.RunSequence): it must not start goroutines that outlive it.
	Executed func(i int, r *sched.Result)
	// Options configure every execution.
	Options sched.Options
	// Progress, if set, is called about every ProgressEvery with the count
	// of executions so far.
	Progress      func(elapsed time.Duration, executions int)
	ProgressEvery time.Duration
}

// A Finding is a failing execution found by Run.
type Finding struct {
	Result    *sched.Result // nil for a Crash
	Iteration int           // index of the execution, from 0
	Seed      uint64        // the execution's own seed
	Strategy  string
	Depth     int // PCT only
	Steps     int // PCT's estimate of decisions, for this execution
	// Crash is set when the execution killed its worker process, or hung
	// it: what the worker printed, its goroutines' stacks included.
	Crash *WorkerError
}

// Summary is the outcome of Run.
type Summary struct {
	// Executions counts the executions of the exploration: those of index
	// below the reported failure's, and that one, or every one run if none
	// failed. Executions run again (see Config.Workers) count once.
	Executions int
	Elapsed    time.Duration
	Finding    *Finding // nil if no failure was accepted
	// Rejected are the failures Accept turned down, in index order.
	Rejected []*Finding
	// Lost lists the worker processes that died or could not start,
	// and why; their executions ran elsewhere.
	Lost []string
	// Notes say how worker processes were run differently than asked.
	Notes []string
	// KeptRunning lists the goroutines that kept running after the test
	// returned in the first execution that had any (see
	// sched.Result.KeptRunning): no failure, but worth a line in the log.
	KeptRunning []sched.Waiting
	// Repeats counts the failures of a continued exploration (Config.Continue)
	// with a signature already judged or known.
	Repeats int
	// Stopped is set when Config.Stop ended the exploration.
	Stopped bool
}

// ExplorationLag is WithLag for the largest lag of an exploration
// configured with lag (Config.Lag: 0 for DefaultLag, negative for none):
// a strategy given it fires timers no earlier than that exploration's
// strategies could, as a Follower of its schedules must.
func ExplorationLag(lag time.Duration) Option { return WithLag(lagOf(lag)) }

// lagOf returns the largest lag of an exploration configured with lag
// (Config.Lag), for WithLag.
func lagOf(lag time.Duration) time.Duration {
	switch {
	case lag == 0:
		return DefaultLag
	case lag < 0:
		return 0
	}
	return lag
}

// Seed returns the seed of execution i of an exploration with base seed
// base.
func Seed(base uint64, i int) uint64 { return mix(base, uint64(i)) }

// Run explores body's interleavings until an execution fails (and Accept
// takes it) or the budget ends. body runs as the root goroutine of each
// execution.
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
	if cfg.Iterations <= 0 && cfg.Duration <= 0 && cfg.Events <= 0 {
		return Summary{}, fmt.Errorf("explore: no budget: set Iterations, Duration or Events")
	}
	if cfg.Shards > 1 && (cfg.Shard < 0 || cfg.Shard >= cfg.Shards) {
		return Summary{}, fmt.Errorf("explore: shard %d of %d: want 0 to %d", cfg.Shard, cfg.Shards, cfg.Shards-1)
	}
	return newCoordinator(body, cfg).run(), nil
}

// DefaultWorkers is the parallelism of an exploration asked for with
// -explore: one worker per processor.
func DefaultWorkers() int { return runtime.GOMAXPROCS(0) }
