package explore

import (
	"slices"
	"sync"
	"time"

	"github.com/weftdev/weft/internal/gls"
	"github.com/weftdev/weft/sched"
)

// A Worker runs chunks of an exploration's executions, one execution at a
// time: the calling process is one (Run makes it), worker processes
// (StartProcess) are the others.
type Worker interface {
	// Run runs the executions of c in order, and stops at the first that
	// fails or once c.Deadline has passed. An error means the worker died
	// or hung and is unusable: the error says what it was doing and what
	// it printed.
	Run(c Chunk) (ChunkResult, error)
	// Close ends the worker.
	Close() error
}

// A Chunk is a run of consecutive executions for a worker.
type Chunk struct {
	Plan  Plan
	Start int // index of the first execution
	Count int
	// Estimate is PCT's estimate of decisions for the first execution:
	// the most decisions of the executions before it. The worker raises it
	// with each execution it runs, as one sequential exploration would.
	Estimate int
	Deadline time.Time // zero: none
	// Events is what is left of Config.Events: no execution of the chunk
	// starts once those before it in the chunk ran this many events, the
	// first always runs. 0: no limit.
	Events int
	// Hashes asks for the hash of every execution in ChunkResult.Hashes.
	Hashes bool

	crashed bool // run again alone after its worker died: not sent
}

// A Plan is what a worker needs besides the body to run an execution by
// its index: the part of Config that decides executions.
type Plan struct {
	Strategy string
	Seed     uint64
	Depth    int
	Lag      time.Duration // Config.Lag
	Options  sched.Options
	// Shard and Shards are Config's: which executions of the whole
	// exploration this one runs.
	Shard, Shards int
	// Known are the signatures of failures that do not end a chunk
	// (Config.Continue): an execution that fails with one is counted in
	// ChunkResult.Repeats, and the chunk goes on.
	Known []string
}

// seed returns the seed of execution i: that of execution i*Shards+Shard of
// the whole exploration.
func (p Plan) seed(i int) uint64 {
	if p.Shards > 1 {
		return Seed(p.Seed, i*p.Shards+p.Shard)
	}
	return Seed(p.Seed, i)
}

// A ChunkResult is what a worker reports of a Chunk.
type ChunkResult struct {
	Ran       int // executions run, from Start
	Decisions int // the most decisions of one of them
	Events    int // the events of all of them (sched.Result.Steps)
	// UsedEstimate reports that one of them ran PCT, whose execution
	// depends on Estimate: a chunk run with another estimate than the
	// sequential exploration's must run again.
	UsedEstimate bool
	// Failure is the failing execution that ended the chunk, if any.
	Failure *Finding
	Elapsed time.Duration
	Hashes  []uint64 // with Chunk.Hashes
	// KeptRunning is the first non-empty sched.Result.KeptRunning of the
	// chunk's executions.
	KeptRunning []sched.Waiting
	// Repeats counts the executions that failed with a signature of
	// Plan.Known.
	Repeats int
}

// runChunk runs c's executions of body in the calling process. executed,
// if not nil, sees each execution, during the call only: the Result of an
// execution that does not end the chunk is released (sched.Result.Release).
//
// The executions run as one sched.RunSequence, which spares each the
// handoffs to and from the caller; each holds execMu, as Execute would.
func runChunk(body func(), c Chunk, executed func(int, *sched.Result)) ChunkResult {
	start := time.Now()
	var res ChunkResult
	est := c.Estimate
	var strats recycler
	_, nested := gls.Get().(*sched.G)
	k := 0 // the chunk's executions given to the sequence
	next := func() (func(), sched.Strategy, sched.Options, bool) {
		if k == c.Count || !c.Deadline.IsZero() && time.Now().After(c.Deadline) || c.Events > 0 && res.Events >= c.Events {
			return nil, nil, sched.Options{}, false
		}
		if !nested {
			execMu.Lock()
		}
		seed := c.Plan.seed(c.Start + k)
		return body, strats.strategy(c.Plan.Strategy, seed, c.Plan.Depth, est, c.Plan.Lag), c.Plan.Options, true
	}
	done := func(r *sched.Result) bool {
		if !nested {
			execMu.Unlock()
		}
		i := c.Start + k
		k++
		res.Ran++
		if res.KeptRunning == nil {
			res.KeptRunning = r.KeptRunning
		}
		res.UsedEstimate = res.UsedEstimate || usesPCT(c.Plan.Strategy, c.Plan.seed(i))
		res.Decisions = max(res.Decisions, r.Decisions)
		res.Events += r.Steps
		if c.Hashes {
			res.Hashes = append(res.Hashes, r.Hash)
		}
		if executed != nil {
			executed(i, r)
		}
		if r.Failure != nil && len(c.Plan.Known) > 0 && slices.Contains(c.Plan.Known, r.Failure.Signature()) {
			res.Repeats++
		} else if r.Failure != nil {
			res.Failure = newFinding(c.Plan, i, est)
			res.Failure.Result = r // kept: never released
			return false
		}
		est = max(est, r.Decisions)
		// Nothing holds r: its memory serves the next execution.
		r.Release()
		return true
	}
	sched.RunSequence(next, done)
	res.Elapsed = time.Since(start)
	return res
}

func newFinding(p Plan, i, steps int) *Finding {
	f := &Finding{Iteration: i, Seed: p.seed(i), Strategy: p.Strategy, Depth: p.Depth, Steps: steps}
	if !usesPCT(p.Strategy, f.Seed) {
		f.Depth, f.Steps = 0, 0
	}
	return f
}

// InProcess returns a worker that runs body's executions in the calling
// process, as the calling process's own worker does: executions still run
// one at a time in a process (see Execute), so more of them add no
// parallelism, only the interleaving of chunks. executed, if not nil, sees
// each execution, during the call only (see runChunk). Tests of the
// coordinator use it.
func InProcess(body func(), executed func(i int, r *sched.Result)) Worker {
	return &local{body: body, executed: executed}
}

// local is the worker of the calling process.
type local struct {
	body     func()
	executed func(int, *sched.Result)
}

func (w *local) Run(c Chunk) (ChunkResult, error) { return runChunk(w.body, c, w.executed), nil }
func (w *local) Close() error                     { return nil }

// execMu makes the executions started through Execute run one at a time in
// a process.
var execMu sync.Mutex

// Execute runs one execution, as sched.Run does, never at the same time as
// another started through Execute in the same process: package-level state
// is never shared by two executions at once, whichever tests run in
// parallel. Minimization and replays run through it, and the executions of
// an exploration's chunks hold its lock in the same way (runChunk). An
// execution started from inside another (a test of a test) runs at once.
func Execute(body func(), s sched.Strategy, opts sched.Options) *sched.Result {
	if _, nested := gls.Get().(*sched.G); !nested {
		execMu.Lock()
		defer execMu.Unlock()
	}
	return sched.Run(body, s, opts)
}
