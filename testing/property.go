package weft

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/weftdev/weft/corpus"
	"github.com/weftdev/weft/explore"
	"github.com/weftdev/weft/internal/text"
	"github.com/weftdev/weft/sched"
)

// Property checks a property of concurrent code over inputs and schedules
// drawn together. Each case of pgregory.net/rapid runs body once under
// weft's schedule controller, as Check runs its body: r draws the case's
// inputs, and the schedule of the execution is drawn from the same stream
// before body runs, as a list of deviations from the default policy (see
// explore.Deviation). A failing case is shrunk by rapid's shrinker, which
// removes and lowers draws of both kinds at once: the failure reported is a
// small input with few preemptions. Only failures of the kind and site of
// the first one found count while it shrinks.
//
//	weft.Property(t, func(t *weft.T, r *rapid.T) {
//		n := rapid.IntRange(1, 4).Draw(r, "n")
//		var c Counter
//		var wg sim.WaitGroup
//		for range n {
//			wg.Go(c.Inc)
//		}
//		wg.Wait()
//		if got := c.Get(); got != n {
//			t.Errorf("Get = %d after %d increments", got, n)
//		}
//	})
//
// Draw inputs in body's own goroutine, before it starts others: a draw made
// there comes before every scheduling decision, so the inputs stay what they
// are while the schedule shrinks, and the draws of one goroutine need no
// synchronization (a rapid.T is not safe for concurrent use). Report
// failures through t, as in Check; r.Skip rejects the case, as in rapid.
//
// As Check does, Property first replays every entry saved for the test
// under testdata/weft/<TestName>/ as a subtest, with its inputs and its
// schedule; then, in a subtest named explore, it runs rapid's cases: as
// many as -rapid.checks (100 by default, Iterations caps them), from a seed
// derived from the test's name unless -rapid.seed is given, so that plain
// go test is deterministic. With -explore it runs rounds of cases, each from
// a seed of its own, until a failure or the budget (-explore.time,
// -explore.iters counting cases) ends. The shrunk failure is saved to the
// corpus (its inputs, as rapid's stream of bits, and its schedule) and
// reported with its inputs and a timeline; rapid's own fail file is not kept.
// rapid's flags (-rapid.checks, -rapid.seed, -rapid.shrinktime, -rapid.v)
// keep their meaning.
//
// Property runs its executions in the test process: -explore.workers and
// -record do not apply.
func Property(t *testing.T, body func(t *T, r *rapid.T), opts ...Option) {
	t.Helper()
	PropertyCases(t, func(r *rapid.T) Case {
		return Case{Body: func(t *T) { body(t, r) }}
	}, opts...)
}

// A Case is one case of a property test, made from rapid's draws by the
// function given to PropertyCases: what runs under the controller, and
// what judges it. Packages built on property mode (lin, the linearizability
// checker) draw a whole scenario before the execution starts.
type Case struct {
	// Body runs under weft's schedule controller, as Check's body does.
	Body func(*T)
	// After, if set, judges the execution once it has ended, outside the
	// controller: a non-nil error fails the case, as an error of kind
	// error whose message is the error's. If the error has a method
	// Details() string, its result is added to the report of the failure
	// weft reports (once, for the shrunk case).
	After func() error
	// Inputs, if set, describes the size of the case's inputs in a few
	// words ("5 operations on 2 goroutines"), to compare the shrunk case
	// with the first one found.
	Inputs string
}

// PropertyCases is Property for packages that build a whole case from
// rapid's draws before it runs: draw makes each case from r, then weft
// draws its schedule, runs Body under the controller and judges the
// execution with After. Saved entries replay and failures shrink as for
// Property.
func PropertyCases(t *testing.T, draw func(r *rapid.T) Case, opts ...Option) {
	t.Helper()
	cfg, err := newConfig(t.Name(), opts, true)
	if err != nil {
		t.Fatal(err)
	}
	if *flagWorker != "" {
		t.Skip("weft: a worker process runs Check's executions, not a property's")
	}
	files, err := corpus.List(cfg.dir)
	if err != nil {
		t.Fatalf("weft: %v", err)
	}
	corpusFails := false
	for _, f := range files {
		ok := t.Run(f.ID, func(t *testing.T) {
			t.Helper()
			if f.Err != nil {
				t.Fatalf("weft: malformed corpus entry: %v", f.Err)
			}
			followCaseEntry(t, draw, cfg.in(t), f)
		})
		corpusFails = corpusFails || (!ok && f.Err == nil)
	}
	t.Run("explore", func(t *testing.T) {
		t.Helper()
		if corpusFails {
			t.Skip("weft: a saved case fails; fix that first")
		}
		cfg := cfg.in(t)
		start := time.Now()
		f, sum, err := findCase(draw, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if f == nil {
			if cfg.explore || testing.Verbose() {
				t.Logf("weft: %d cases passed, %s (rapid, base seed %#x)", sum.cases, time.Since(start).Round(time.Millisecond), cfg.seed)
			}
			return
		}
		if d := f.Property.detailer; d != nil {
			f.Property.Details = d.Details()
		}
		saveAndReport(t, f, cfg)
	})
}

// FindCases runs a property's cases as PropertyCases would, without a
// *testing.T and without saving anything: it returns the shrunk failure,
// or nil if every case of the budget passed (Iterations, default 100,
// from a seed derived from Name, or Seed). Flags are not consulted, but
// rapid's own are. Tests of weft itself, and tools, use it.
func FindCases(draw func(r *rapid.T) Case, opts ...Option) (*Finding, error) {
	cfg, err := newConfig("FindCases", opts, false)
	if err != nil {
		return nil, err
	}
	cfg.iterSet = true
	f, _, err := findCase(draw, cfg)
	return f, err
}

// FollowCase runs the case of a corpus entry saved by a property test
// once: its inputs drawn again from the entry's stream, its schedule
// followed. It returns the execution, traced; its failure, or After's; and
// where it drifted from the schedule. t receives rapid's log of the draws.
// Flags are not consulted.
func FollowCase(t *testing.T, draw func(r *rapid.T) Case, e *corpus.Entry, opts ...Option) (*sched.Result, *sched.Failure, []string, error) {
	cfg, err := newConfig(e.Test, opts, false)
	if err != nil {
		return nil, nil, nil, err
	}
	run, err := followCase(t, draw, cfg, e)
	if err != nil {
		return nil, nil, nil, err
	}
	return run.result, run.failure, run.drift, nil
}

// PropertyInfo is what a Finding of property mode adds: how the case was
// found and shrunk, and what it drew.
type PropertyInfo struct {
	// Cases counts rapid's cases up to the first failure, that one
	// included.
	Cases int
	// Seed is rapid's seed for the round that failed.
	Seed uint64
	// Runs counts the executions rapid's shrinker ran.
	Runs int
	// First is the first failing execution found, before shrinking;
	// FirstInputs and Inputs describe the inputs of the first case and
	// of the shrunk one (Case.Inputs).
	First               *sched.Result
	FirstInputs, Inputs string
	// Deviations is the schedule drawn for the shrunk case, as the list
	// of deviations from the default policy it is drawn as (Final's
	// Schedule is the same schedule as explicit choices).
	Deviations explore.Deviations
	// Draws are the draws of the shrunk case as rapid logs them
	// ("label: value"), the schedule's included.
	Draws []string
	// Details is what After's error added, if anything: filled in by
	// PropertyCases for its report (the details may write files).
	Details  string
	detailer interface{ Details() string }
	// DeterministicRuns counts the executions of the shrunk case, all with the
	// same event hash.
	DeterministicRuns int
}

// writeProperty writes how a property's failing case was found and shrunk.
func writeProperty(b *strings.Builder, p *PropertyInfo, final *sched.Result) {
	before, after := p.First.Schedule().Preemptions(), final.Schedule().Preemptions()
	from, to := text.Count(before, "preemption"), text.Count(after, "preemption")
	if p.FirstInputs != "" {
		from = p.FirstInputs + ", " + from
	}
	if p.Inputs != "" {
		to = p.Inputs + ", " + to
	}
	fmt.Fprintf(b, "  shrunk: from %s to %s (rapid's shrinker, %d executions)\n", from, to, p.Runs)
	fmt.Fprintf(b, "  deterministic: run %d times, same execution (event hash %#x)\n", p.DeterministicRuns, final.Hash)
	if len(p.Draws) > 0 {
		b.WriteString("  inputs (rapid's draws):\n")
		for _, d := range p.Draws {
			fmt.Fprintf(b, "    %s\n", d)
		}
	}
	if p.Details != "" {
		writeIndented(b, "  ", p.Details)
	}
}
