package workload

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync/atomic"

	"github.com/weftdev/weft/sched"
)

// A Workload is a named test body. Body allocates fresh state on every
// call, so it can be run any number of times, in plain mode, recorded or
// under the controller. It panics, from the goroutine that called it, with
// a message naming the workload ("bank: total 990, want 1000") when the
// final check fails.
type Workload struct {
	// Name names the workload in benchmarks and tests: "bank", "cache",
	// "pipeline", "jacobi", "counter", "compute"; "buggy-" and the name
	// for the buggy variants.
	Name string
	// Body is the test body.
	Body func()
	// Events is a rough estimate of the operations on sim primitives one
	// run of Body performs.
	Events int
	// Buggy reports a variant that fails in some runs.
	Buggy bool
}

// Correct returns the correct workloads, each sized to perform about
// events operations on sim primitives (at least a few hundred).
func Correct(events int) []Workload {
	bank := BankParams{}.withDefaults()
	bank.Size = max(1, events/(bank.Workers*bankEventsPerOp))
	cache := CacheParams{}.withDefaults()
	cache.Size = max(1, events/(cache.Workers*cacheEventsPerOp))
	pipe := PipelineParams{}.withDefaults()
	pipe.Size = max(1, events/pipelineEventsPerItem)
	jac := JacobiParams{}.withDefaults()
	jac.Size = max(1, events/(jac.Cells*jacobiEventsPerCell))
	ctr := CounterParams{}.withDefaults()
	ctr.Size = max(1, events/ctr.Workers)
	comp := ComputeParams{}.withDefaults()
	comp.Size = max(1, events/(comp.Workers*computeEventsPerItem))
	return []Workload{
		{Name: "bank", Body: Bank(bank), Events: bank.Events()},
		{Name: "cache", Body: Cache(cache), Events: cache.Events()},
		{Name: "pipeline", Body: Pipeline(pipe), Events: pipe.Events()},
		{Name: "jacobi", Body: Jacobi(jac), Events: jac.Events()},
		{Name: "counter", Body: Counter(ctr), Events: ctr.Events()},
		{Name: "compute", Body: Compute(comp), Events: comp.Events()},
	}
}

// Buggy returns the buggy variants at their tuned sizes: each fails in a
// few percent of plain runs with GOMAXPROCS=2 and in 15 to 30 percent of
// recorded runs, and performs a few thousand operations, so that replay
// tests are fast.
func Buggy() []Workload {
	return []Workload{
		{Name: "buggy-bank", Body: Bank(BuggyBankParams), Events: BuggyBankParams.Events(), Buggy: true},
		{Name: "buggy-cache", Body: Cache(BuggyCacheParams), Events: BuggyCacheParams.Events(), Buggy: true},
		{Name: "buggy-counter", Body: Counter(BuggyCounterParams), Events: BuggyCounterParams.Events(), Buggy: true},
	}
}

// RunPlain runs body in plain mode, on a new goroutine (so that it is
// neither recorded nor controlled), and returns its panic as an error, nil
// if it passed.
func RunPlain(body func()) (err error) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			if v := recover(); v != nil {
				if e, ok := v.(error); ok {
					err = e
				} else {
					err = fmt.Errorf("%v", v)
				}
			}
		}()
		body()
	}()
	<-done
	return err
}

// FailureRate runs body runs times in plain mode and returns how many
// runs failed, and the first failure.
func FailureRate(body func(), runs int) (failures int, first error) {
	for range runs {
		if err := RunPlain(body); err != nil {
			if first == nil {
				first = err
			}
			failures++
		}
	}
	return failures, first
}

// rng returns the deterministic generator of worker w of a workload:
// plain math/rand, not sim.Intn, so that random choices are no operations.
func rng(workload, w uint64) *rand.Rand {
	return rand.New(rand.NewPCG(workload, w+1))
}

// A gate starts workers together, so that a short run overlaps them as
// much as a long one would: each worker calls wait before its work, which
// spins until every worker has arrived (goroutines woken from a blocking
// wait would start microseconds apart, past the end of a short run). The
// gate is no sim operation: it spins on a sync/atomic counter, so that a
// recorded run logs only the workload's own operations, and it is skipped
// under the controller, where the schedule decides the overlap and a
// goroutine spinning outside the controller's knowledge would never let
// the others run.
type gate struct {
	workers int32
	arrived atomic.Int32
}

func newGate(workers int) *gate { return &gate{workers: int32(workers)} }

func (g *gate) wait() {
	if sched.Current() != nil {
		return
	}
	g.arrived.Add(1)
	for i := 1; g.arrived.Load() < g.workers; i++ {
		if i%64 == 0 {
			runtime.Gosched()
		}
	}
}
