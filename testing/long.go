package weft

import (
	"fmt"
	"sync"

	"github.com/weftdev/weft/explore"
	"github.com/weftdev/weft/sched"
)

// Long tests. A runaway is an execution that ran past its explored events
// and sched.OverrunBudgets budgets more without ending: a livelock, or a
// stress test longer than the budgets (xsync's map tests run 30 to 300
// million atomic operations, a second under go test). Before it is
// reported, its execution is followed again and let run on to LongBudgets
// budgets: if it then ends and passes, it was a long test, which go test
// passes too; the test passes, says so, and its exploration stops there,
// every execution of it being as long. One that still does not end, or
// fails, is the runaway reported.

// LongBudgets is how many budgets of events (-explore.maxsteps, 4,194,304
// by default) a runaway's execution is let run on before it is reported:
// 537 million events by default, a minute or so.
const LongBudgets = 128

// letRunOn follows the runaway's schedule again, with LongBudgets budgets.
func letRunOn(plain func(), runaway *sched.Result, cfg *config, opts sched.Options) *sched.Result {
	opts.Overruns = LongBudgets - 1
	return explore.Execute(plain, explore.Follow(runaway.Schedule(), explore.ExplorationLag(cfg.lag)), opts)
}

// longNote says what a long test's runaway turned out to be.
func longNote(f *Finding, maxSteps int) string {
	return fmt.Sprintf("execution %d ran %d events without ending, past the runaway limit, and ended (passing) after %d events when let run on: a long test, not a livelock; exploration stopped there, each execution's first %d events explored (-explore.maxsteps)",
		f.Found.Iteration, f.Found.Result.Steps, f.Long.Steps, maxSteps)
}

// A halt is a stop channel closed once, by the exploration or by the stop
// channel it was made from.
type halt struct {
	c    chan struct{}
	once sync.Once
}

func (h *halt) close() { h.once.Do(func() { close(h.c) }) }

// haltable returns a halt that outer's closing closes too, and the
// function that ends the goroutine watching outer.
func haltable(outer <-chan struct{}) (*halt, func()) {
	h := &halt{c: make(chan struct{})}
	if outer == nil {
		return h, func() {}
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-outer:
			h.close()
		case <-done:
		}
	}()
	return h, func() { close(done) }
}
