package weft

import (
	"github.com/weftdev/weft/corpus"
	"github.com/weftdev/weft/explore"
	"github.com/weftdev/weft/sched"
)

// WriteTimeline exports writeTimeline to the tests.
var WriteTimeline = writeTimeline

// SaveFinding saves a finding of test name, with the given schedule, to the
// corpus directory dir as save does, and returns its report and where it
// was saved ("" if not).
func SaveFinding(dir, name string, s sched.Schedule) (report, path string) {
	cfg := defaultConfig(name)
	cfg.dir, cfg.seed = dir, 0x5eed
	failure := &sched.Failure{Kind: sched.Leak, Message: "the test returned while goroutines remain blocked"}
	result := &sched.Result{Failure: failure, Hash: 1}
	result.SetSchedule(s)
	f := &Finding{
		Executions: 3,
		Found:      &explore.Finding{Strategy: "random", Seed: 7, Iteration: 2, Result: result},
		Failure:    failure,
		Final:      result,
		Minimized:  explore.Minimized{Result: result, Before: len(s), After: len(s)},
		Entry: &corpus.Entry{Test: name, Failure: failure.Summary(), Signature: failure.Signature(),
			Hash: 1, Schedule: s, Preemptions: len(s), Original: len(s)},
	}
	sv := save(f, cfg)
	return sv.text, sv.path
}

// MaxSavedChoices exports maxSavedChoices to the tests.
const MaxSavedChoices = maxSavedChoices

// WriteFailure exports writeFailure to the tests.
var WriteFailure = writeFailure

// ParallelLimit sets go test's -parallel limit for Find's executions:
// at most n parallel subtests run at once (0, Find's default: no limit).
func ParallelLimit(n int) Option { return func(c *config) { c.sel.parallel = n } }
