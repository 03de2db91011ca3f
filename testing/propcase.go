package weft

import (
	"flag"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/weftdev/weft/corpus"
	"github.com/weftdev/weft/explore"
	"github.com/weftdev/weft/sched"
)

// The schedule of a case is drawn as a list of deviations from the default
// policy (explore.Deviation), before the case's body runs, so that inputs
// drawn in the body come after it in the stream and stay aligned while the
// list shrinks. Goroutines and events are drawn from fixed ranges, so that
// the same bits always give the same schedule; rapid favours small numbers
// within them.
const (
	maxDeviations = 6
	maxGoroutine  = 15
	maxEvent      = 1 << 10
	maxAlt        = 7
	scheduleLabel = "weft.schedule"
)

var scheduleGen = rapid.Custom(func(r *rapid.T) explore.Deviations {
	return rapid.SliceOfN(rapid.Custom(func(r *rapid.T) explore.Deviation {
		return explore.Deviation{
			G:   rapid.IntRange(0, maxGoroutine).Draw(r, "goroutine"),
			N:   rapid.IntRange(1, maxEvent).Draw(r, "event"),
			Alt: rapid.IntRange(0, maxAlt).Draw(r, "alternative"),
		}
	}), 0, maxDeviations).Draw(r, "deviations")
})

// caseRun is one execution of a case.
type caseRun struct {
	result   *sched.Result
	failure  *sched.Failure                // the execution's, or After's
	detailer interface{ Details() string } // After's error, if it has details
	invalid  string                        // rapid rejected the case from inside the execution
	t        *T
	drift    []string
	devs     explore.Deviations // the schedule drawn
}

// runCase draws a case and its schedule from r and runs it once; replay,
// if not nil, replays a saved schedule instead of the drawn one. final
// traces the execution and asks After's error for its details.
func runCase(r *rapid.T, draw func(*rapid.T) Case, cfg *config, replay sched.Schedule, final bool) *caseRun {
	c := draw(r)
	devs := scheduleGen.Draw(r, scheduleLabel)
	var strat sched.Strategy = explore.Deviate(devs)
	var rp *explore.Follower
	if replay != nil {
		rp = explore.Follow(replay, explore.ExplorationLag(cfg.lag))
		strat = rp
	}
	opts := cfg.schedOptions()
	opts.Trace = final
	var last atomic.Pointer[T]
	run := &caseRun{devs: devs}
	run.result = explore.Execute(wrap(c.Body, cfg, &last), strat, opts)
	run.t = last.Load()
	if rp != nil {
		run.drift = rp.Drift()
	}
	run.failure = run.result.Failure
	if why := rapidRejected(run.failure); why != "" {
		run.invalid, run.failure = why, nil
		return run
	}
	if run.failure == nil && c.After != nil {
		if err := c.After(); err != nil {
			run.failure = &sched.Failure{Kind: sched.Error, Message: err.Error()}
			run.detailer, _ = err.(interface{ Details() string })
		}
	}
	return run
}

// rapidRejected tells whether a failure is rapid rejecting the case from
// inside the execution (r.Skip, a filter that found nothing, a replay that
// ran out of bits): a panic raised by rapid, but not by its Fatal.
func rapidRejected(f *sched.Failure) string {
	if f == nil || f.Kind != sched.Panic {
		return ""
	}
	top, _, _ := strings.Cut(f.Stack, "\n")
	if strings.HasPrefix(top, "pgregory.net/rapid.") && !strings.HasPrefix(top, "pgregory.net/rapid.(*T).fail") {
		return f.Message
	}
	return ""
}

// A search is one property's exploration through rapid's engine: the
// property function rapid calls for each case, and what it learned.
type search struct {
	draw func(*rapid.T) Case
	cfg  *config
	tb   *rapidTB

	limit    int       // cases at most, 0: none
	deadline time.Time // zero: none
	cases    int       // cases run before the first failure, and that one

	target  string // the signature of the first failure: the one to shrink
	first   *caseRun
	firstIn string
	runs    int            // executions after the first failure
	hashes  map[uint64]int // executions of the target failure, by event hash
	final   *caseRun
	finalIn string
	draws   []string
}

// budgetLeft reports whether the search may run another case before it has
// found a failure.
func (s *search) budgetLeft() bool {
	if s.limit > 0 && s.cases >= s.limit {
		return false
	}
	return s.deadline.IsZero() || time.Now().Before(s.deadline)
}

// property is the function rapid checks.
func (s *search) property(r *rapid.T) {
	if s.target == "" && !s.budgetLeft() {
		return // the budget ended within rapid's round: pass what is left
	}
	final := s.tb.reported()
	var inputs string
	run := runCase(r, func(r *rapid.T) Case {
		c := s.draw(r)
		inputs = c.Inputs
		return c
	}, s.cfg, nil, final)
	if s.target == "" {
		s.cases++
	} else {
		s.runs++
	}
	if run.invalid != "" {
		r.Skip("weft: rapid rejected the case inside the execution: " + run.invalid)
	}
	f := run.failure
	if f == nil {
		return
	}
	sig := shrinkSignature(f)
	switch {
	case s.target == "":
		s.target, s.first, s.firstIn = sig, run, inputs
	case sig != s.target:
		return // another failure: not the one being shrunk
	}
	s.hashes[run.result.Hash]++
	if final {
		s.final, s.finalIn = run, inputs
	}
	r.Fatal(fmt.Sprintf("weft: %s (event hash %#x)", f.Summary(), run.result.Hash))
}

// shrinkSignature identifies a failure while a case shrinks: its
// signature, but with the sites of a deadlock, a leak or an escape counted
// once each, so that fewer goroutines stuck at the same place are the same
// failure.
func shrinkSignature(f *sched.Failure) string {
	switch f.Kind {
	case sched.Deadlock, sched.Leak, sched.Escape:
		var sites []string
		for _, w := range f.Waiting {
			sites = append(sites, w.Op+"@"+w.Site)
		}
		slices.Sort(sites)
		return f.Kind.String() + " " + strings.Join(slices.Compact(sites), ",")
	}
	return f.Signature()
}

// findCase explores a property with rapid until a failure or the budget
// ends, and returns the shrunk failure, or nil.
func findCase(draw func(*rapid.T) Case, cfg *config) (*Finding, caseSummary, error) {
	if !testing.Testing() {
		testingInit.Do(testing.Init) // rapid asks testing.Short, which needs go test's flags: a tool has none
	}
	s := &search{draw: draw, cfg: cfg, hashes: map[uint64]int{}}
	rounds := 1
	if cfg.explore {
		s.limit = cfg.exploreIters
		if cfg.exploreTime > 0 {
			s.deadline = time.Now().Add(cfg.exploreTime)
		}
		rounds = 0 // until the budget ends
	} else if cfg.iterSet {
		s.limit = cfg.iterations
		rounds = 0 // until the limit: rounds of -rapid.checks cases
	}
	for round := 0; rounds == 0 || round < rounds; round++ {
		seed := explore.Seed(cfg.seed, round)
		s.tb = &rapidTB{name: cfg.name}
		before := s.cases
		withRapidSeed(seed, func() { rapid.Check(s.tb, s.property) })
		if s.tb.failed() || s.cases == before || !s.budgetLeft() {
			break
		}
	}
	sum := caseSummary{cases: s.cases}
	if !s.tb.failed() {
		return nil, sum, nil
	}
	return s.finding(), sum, nil
}

// caseSummary is what a search that found nothing tells.
type caseSummary struct{ cases int }

// withRapidSeed runs f with rapid's -rapid.seed set to seed, unless the
// user gave one (on the command line or as RAPID_SEED): rapid takes its
// seed from its flag alone, and a random one without it, where plain go
// test must be deterministic. Property runs hold rapidMu, so that no two
// set the flag at once.
func withRapidSeed(seed uint64, f func()) {
	rapidMu.Lock()
	defer rapidMu.Unlock()
	fl := flag.Lookup("rapid.seed")
	userSeed.Do(func() { userSeed.set = fl == nil || fl.Value.String() != "0" })
	if userSeed.set {
		f()
		return
	}
	_ = fl.Value.Set(fmt.Sprint(max(seed, 1)))
	defer func() { _ = fl.Value.Set("0") }()
	f()
}

var (
	testingInit sync.Once
	rapidMu     sync.Mutex
	userSeed    struct {
		sync.Once
		set bool
	}
)

// rapidTB is the testing.TB rapid reports to during a search: weft reads
// what rapid says, and reports the failure its own way.
type rapidTB struct {
	name string
	mu   sync.Mutex
	logs []string
	errs []string
	// reports counts rapid's failure reports: after one, the next case
	// rapid runs is the shrunk case, run again for its output.
	reports int
	// drawn holds the draws rapid logs once it has reported.
	drawn []string
}

func (tb *rapidTB) reported() bool {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	return tb.reports > 0
}

func (tb *rapidTB) failed() bool {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	return len(tb.errs) > 0
}

func (tb *rapidTB) Helper()      {}
func (tb *rapidTB) Name() string { return tb.name }
func (tb *rapidTB) Logf(format string, args ...any) {
	tb.log(fmt.Sprintf(format, args...))
}
func (tb *rapidTB) Log(args ...any) { tb.log(sprintln(args...)) }
func (tb *rapidTB) log(line string) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	if d, ok := strings.CutPrefix(line, "[rapid] draw "); ok && tb.reports > 0 {
		tb.drawn = append(tb.drawn, d)
		return
	}
	tb.logs = append(tb.logs, line)
}
func (tb *rapidTB) Errorf(format string, args ...any) { tb.error(fmt.Sprintf(format, args...)) }
func (tb *rapidTB) Error(args ...any)                 { tb.error(sprintln(args...)) }
func (tb *rapidTB) Fatalf(format string, args ...any) { tb.error(fmt.Sprintf(format, args...)) }
func (tb *rapidTB) Fatal(args ...any)                 { tb.error(sprintln(args...)) }
func (tb *rapidTB) error(msg string) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	tb.errs = append(tb.errs, msg)
	tb.reports++
}
func (tb *rapidTB) Fail()                            { tb.error("failed") }
func (tb *rapidTB) FailNow()                         {}
func (tb *rapidTB) Failed() bool                     { return tb.failed() }
func (tb *rapidTB) Skipf(format string, args ...any) {}
func (tb *rapidTB) Skip(args ...any)                 {}
func (tb *rapidTB) SkipNow()                         {}

var _ rapid.TB = (*rapidTB)(nil)

// entryInput returns an entry's input as the bytes rapid.MakeFuzz reads
// its stream from: the words, little-endian.
func entryInput(e *corpus.Entry) []byte {
	b := make([]byte, 0, 8*len(e.Input))
	for _, w := range e.Input {
		for i := range 8 {
			b = append(b, byte(w>>(8*i)))
		}
	}
	return b
}
