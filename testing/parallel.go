package weft

import (
	"flag"
	"runtime"
	"strconv"

	"github.com/weftdev/weft/sim"
)

// go test's -parallel limit inside an execution. go test runs at most
// -test.parallel tests at once (testing.testState): a parallel subtest,
// released once its parent's function has returned, waits for one of the
// limit's slots; a test whose function returns with parallel subtests gives
// its slot up while they run, and a sequential one takes one again once
// they have completed (tRunner). An execution keeps such a count of its
// own, the top-level test holding one slot at its start: the subtests wait
// for a slot on a sim channel, so which of the waiting ones gets a freed
// slot is a choice of the schedule, explored and replayed as any other.
// The execution stands alone: the slots that other top-level tests hold in
// the test process (t.Parallel() at the top stays on the real test) do not
// count.

// slots are an execution's parallel slots: how many are taken, how many
// subtests wait for one, the channel a freed slot is handed over on, and
// whether a parallel subtest took one. Guarded by the execution's mu.
type slots struct {
	running, waiting int
	start            *sim.Chan[struct{}]
	used             bool
}

// acquire takes a slot for a parallel subtest, waiting for one to be freed
// when all limit are taken, as testing.testState.waitParallel does; limit
// 0 is no limit.
func (x *execution) acquire() {
	x.mu.Lock()
	x.slots.used = true
	if x.sel.parallel <= 0 || x.slots.running < x.sel.parallel {
		x.slots.running++
		x.mu.Unlock()
		return
	}
	x.slots.waiting++
	if x.slots.start == nil {
		x.slots.start = sim.NewChan[struct{}](0)
	}
	start := x.slots.start
	x.mu.Unlock()
	start.Recv()
}

// release frees a slot, handing it to a waiting subtest if there is one,
// as testing.testState.release does.
func (x *execution) release() {
	x.mu.Lock()
	if x.slots.waiting == 0 {
		x.slots.running--
		x.mu.Unlock()
		return
	}
	x.slots.waiting--
	start := x.slots.start
	x.mu.Unlock()
	start.Send(struct{}{})
}

// limitUsed returns the -parallel limit the execution ran its parallel
// subtests under, as a corpus entry records it: 0 if it had none, or ran
// them without a limit.
func (x *execution) limitUsed() int {
	x.mu.Lock()
	defer x.mu.Unlock()
	if !x.slots.used {
		return 0
	}
	return x.sel.parallel
}

// settle is called once a subtest has completed but for its slot: a
// parallel one without parallel subtests frees its slot; a sequential one
// whose parallel subtests ran (it gave its slot up for them) takes one
// again, as tRunner does.
func (t *T) settle() {
	t.x.mu.Lock()
	hadParallel := t.hasParallel
	t.x.mu.Unlock()
	switch {
	case t.parallel && !hadParallel:
		t.x.release()
	case !t.parallel && hadParallel:
		t.x.acquire()
	}
}

// parallelLimit is go test's -parallel flag as the test process sees it
// (default GOMAXPROCS): how many parallel subtests of an execution run at
// once. Worker processes, which start at GOMAXPROCS=1, are told the test
// process's (see childArgs and workerSetup).
func parallelLimit() int {
	n := runtime.GOMAXPROCS(0)
	if f := flag.Lookup("test.parallel"); f != nil {
		if v, err := strconv.Atoi(f.Value.String()); err == nil {
			n = v
		}
	}
	return max(n, 1)
}
