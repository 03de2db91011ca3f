package weft

import (
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/weftdev/weft/corpus"
	"github.com/weftdev/weft/explore"
	"github.com/weftdev/weft/sched"
)

// A Finding is a failing execution, minimized and verified, ready to save.
type Finding struct {
	// Failure is what went wrong in the minimized execution.
	Failure *sched.Failure
	// Executions counts the executions explored, the failing one included
	// (every one, for a failure that does not replay).
	Executions int
	// Found is the failing execution as exploration found it.
	Found *explore.Finding
	// Minimized tells how the schedule shrank.
	Minimized explore.Minimized
	// Final is the minimized schedule followed once more, traced: its
	// Trace holds every event with its call site.
	Final *sched.Result
	// Nondeterminism is set when the failing execution does not replay
	// identically: a replay did not fail the same way, or not with the
	// same events. Such a finding has no Entry and is not saved.
	Nondeterminism error
	// Crash is set when the failing execution killed or hung its worker
	// process, with what the process printed. It has no schedule, no
	// Entry, and is not saved.
	Crash *explore.WorkerError
	// Unreplayed are the failing executions found before this one that did
	// not replay identically (each with Nondeterminism set): exploration
	// went on past them, looking for a failure that replays.
	Unreplayed []*Finding
	// Unlisted counts the failing executions that did not replay beyond
	// the first maxUnreplayed, which are all Unreplayed keeps.
	Unlisted int
	// Long is set when the failure was a runaway whose execution, let run
	// on (LongBudgets), ended and passed: a long test, not a livelock. It
	// is not reported, nor saved, and exploration stops there.
	Long *sched.Result
	// Logs are the messages the body logged in the final execution.
	Logs []string
	// Entry is the corpus entry to save. A failure weft cannot replay has
	// none: a crash, one that did not replay identically, and an Outside
	// failure (a goroutine outside the execution used its objects), which
	// is reported as found.
	Entry *corpus.Entry
	// Recorded describes the recorded free run the failure came from, for
	// findings of -record and RecordRuns; nil for explored ones.
	Recorded *Recording
	// Property tells how a failing case of a property test (Property,
	// PropertyCases, FindCases) was found and shrunk; nil for others.
	Property *PropertyInfo

	out *output // what the final replay wrote, to show it
}

// Find explores body as Check would, without a *testing.T and without
// saving anything: it returns the minimized failure, or nil if every
// execution of the budget (Iterations, default 100, fewer past 2^19 events
// or 10 seconds) passed. A failing execution that does not replay
// identically does not end the exploration; if no failure replays, Find
// returns the first one, with Nondeterminism set. Flags are not consulted.
// Tests of weft itself, and tools, use it.
func Find(body func(*T), opts ...Option) (*Finding, error) {
	cfg, err := newConfig("Find", opts, false)
	if err != nil {
		return nil, err
	}
	x, err := find(body, cfg, nil, nil)
	return x.finding, err
}

// exploration is what find found.
type exploration struct {
	// finding is the failure to report: the accepted one, or the first
	// that did not replay if none did.
	finding    *Finding
	executions int
	first      *output // what execution 0 wrote
	lost       []string
	notes      []string
	kept       []sched.Waiting // goroutines that kept running after the test returned
	repeats    int             // failures of a continued exploration that repeated an earlier one
	stopped    bool            // a signal ended the exploration
	// estimate is the most decisions of the failing executions, for
	// rerunning executions with PCT (profiles).
	estimate int
	// overran counts the executions of this process that ran past their
	// budget of explored events (sched.Result.Overran); longest is the
	// most events one of them ran.
	overran, longest int
	// long is the runaway that, let run on, ended: exploration stopped
	// there (see Finding.Long).
	long *Finding
}

// find runs the pipeline: explore, and judge each failing execution in
// turn (replay, minimize, verify, trace) until one replays identically.
// A continued exploration (-explore.continue) judges the first failure of
// each signature and hands each to found as it is judged, and goes on
// until its budget ends; its exploration has no finding. Of the failures
// that do not replay, the first maxUnreplayed are kept for the report, and
// the others counted: a test that depends on something weft does not
// control can fail in every execution.
func find(body func(*T), cfg *config, progress func(time.Duration, int), found func(*Finding)) (exploration, error) {
	var (
		x        exploration
		accepted *Finding
		rejected []*Finding
		unlisted int
		last     atomic.Pointer[T]
	)
	ec := cfg.exploreConfig()
	ec.Progress = progress
	halt, stop := haltable(ec.Stop)
	defer stop()
	ec.Stop = halt.c
	ec.Executed = func(i int, r *sched.Result) {
		if t := last.Load(); i == 0 && t != nil {
			x.first = t.out
		}
		if r.Overran {
			x.overran++
			x.longest = max(x.longest, r.Steps)
		}
	}
	ec.Accept = func(f *explore.Finding) bool {
		if x.long != nil && f.Result != nil && f.Result.Failure.Kind == sched.Runaway {
			return false // as long as the one let run on
		}
		x.estimate = max(x.estimate, f.Steps)
		j := judge(body, cfg, f, f.Iteration+1)
		if j.Long != nil {
			x.long = j
			halt.close()
			return false
		}
		if ec.Continue {
			found(j)
			return false
		}
		if j.Nondeterminism != nil {
			if len(rejected) < maxUnreplayed {
				rejected = append(rejected, j)
			} else {
				unlisted++
			}
			return false
		}
		accepted = j
		return true
	}
	sum, err := explore.Run(wrap(body, cfg, &last), ec)
	x.executions, x.lost, x.notes, x.kept = sum.Executions, sum.Lost, sum.Notes, sum.KeptRunning
	x.repeats, x.stopped = sum.Repeats, sum.Stopped && x.long == nil
	if x.long != nil {
		x.notes = append(x.notes, longNote(x.long, cfg.maxSteps))
	}
	if err != nil {
		return x, err
	}
	switch {
	case accepted != nil:
		x.finding = accepted
		accepted.Unreplayed, accepted.Unlisted = rejected, unlisted
	case len(rejected) > 0:
		x.finding = rejected[0]
		x.finding.Unreplayed, x.finding.Unlisted = rejected[1:], unlisted
		x.finding.Executions = sum.Executions // every one ran: none replayed
	}
	return x, nil
}

// maxUnreplayed bounds the failures that did not replay a report lists.
const maxUnreplayed = 8

// judge replays a failing execution: if it replays identically, it is
// minimized, verified and traced; otherwise the Finding says why not
// (Nondeterminism) and has no Entry.
func judge(body func(*T), cfg *config, found *explore.Finding, executions int) *Finding {
	f := &Finding{Executions: executions, Found: found}
	if c := found.Crash; c != nil {
		what := "died"
		if c.Hung {
			what = "hung"
		}
		f.Crash = c
		f.Failure = &sched.Failure{Kind: sched.Panic, Stack: c.Output,
			Message: fmt.Sprintf("the worker process running the execution %s (%s): %s", what, c.Why, firstLine(c.Output))}
		return f
	}
	f.Failure, f.Final = found.Result.Failure, found.Result
	if f.Failure.Kind == sched.Outside {
		// A goroutine outside the execution ran in real time: no replay
		// shows it again, and the schedule is not the cause. Reported as
		// found, not minimized, not saved (see Finding.Entry).
		return f
	}
	opts := cfg.schedOptions()
	plain := wrap(body, cfg, nil)
	if f.Failure.Kind == sched.Runaway {
		if r := letRunOn(plain, found.Result, cfg, opts); r.Failure == nil {
			f.Long = r
			return f
		}
	}
	m, err := shrink(plain, found.Result, cfg, opts)
	if err != nil {
		f.Nondeterminism = err
		return f
	}
	f.Minimized = m
	blocked := found.Result.Failure.Kind == sched.Blocked

	// Follow it once more with the trace on, for the report and for the sites
	// in the saved schedule. Tracing does not change the execution, so
	// the hash must still agree.
	var last atomic.Pointer[T]
	traced := opts
	traced.Trace, traced.Stacks = true, profiling()
	if m.Result.Failure.Kind == sched.Runaway {
		// A runaway is reported with its last events only.
		traced.TraceFrom = m.Result.Steps - sched.MaxTrace
	}
	final := explore.Execute(wrap(body, cfg, &last), explore.Follow(m.Result.Schedule(), explore.ExplorationLag(cfg.lag)), traced)
	if !blocked && (final.Failure.Signature() != m.Result.Failure.Signature() || final.Hash != m.Result.Hash) {
		f.Nondeterminism = fmt.Errorf("the traced replay did not fail the same way: %s (event hash %#x) where the original gave %s (event hash %#x)",
			final.Failure.Summary(), final.Hash, m.Result.Failure.Summary(), m.Result.Hash)
		f.Final = m.Result
		return f
	}
	if final.Failure == nil {
		// Only a Blocked execution gets here unverified.
		f.Nondeterminism = fmt.Errorf("goroutine %s blocked outside weft's control once, but the replay of the execution ended without blocking (a machine too loaded to run it?)",
			found.Result.Failure.Goroutine)
		return f
	}
	f.Final, f.Failure = final, final.Failure
	parallel := 0
	if t := last.Load(); t != nil {
		f.Logs, f.out, parallel = t.logs(), t.out, t.x.limitUsed()
	}
	f.Entry = &corpus.Entry{
		Test:        cfg.name,
		Found:       foundOf(found),
		Failure:     f.Failure.Summary(),
		Signature:   f.Failure.Signature(),
		Preemptions: m.After,
		Original:    m.Before,
		Hash:        f.Final.Hash,
		Schedule:    f.Final.Schedule(),
		Parallel:    parallel,
	}
	return f
}

// foundOf is how the failing execution was found, as a corpus entry says.
func foundOf(found *explore.Finding) corpus.Found {
	return corpus.Found{Strategy: found.Strategy, Seed: found.Seed, Iteration: found.Iteration, Depth: found.Depth}
}

// shrink verifies a failing execution, minimizes its schedule, and
// verifies the minimized one, falling back on the one found if that does
// not replay identically. A goroutine blocked outside weft's control costs
// a block timeout per replay, and a runaway every event of its budgets:
// such executions are not verified here (the traced replay that follows
// checks a runaway's hash), and a runaway is not minimized.
func shrink(plain func(), found *sched.Result, cfg *config, opts sched.Options) (explore.Minimized, error) {
	lag := explore.ExplorationLag(cfg.lag)
	switch found.Failure.Kind {
	case sched.Runaway:
		p := found.Schedule().Preemptions()
		return explore.Minimized{Result: found, Before: p, After: p}, nil
	case sched.Blocked:
		return explore.Minimize(plain, found, explore.MinimizeConfig{Options: opts, Lag: cfg.lag, Stop: cfg.hurry}), nil
	}
	if _, err := explore.Verify(plain, found.Schedule(), found, 1, opts, lag); err != nil {
		return explore.Minimized{}, err
	}
	m := explore.Minimize(plain, found, explore.MinimizeConfig{Options: opts, Lag: cfg.lag, Stop: cfg.hurry})
	if _, err := explore.Verify(plain, m.Result.Schedule(), m.Result, 2, opts, lag); err != nil {
		// The shorter schedule does not replay identically: the one
		// found, which did once, may.
		if _, again := explore.Verify(plain, found.Schedule(), found, 2, opts, lag); again != nil {
			return explore.Minimized{}, err
		}
		m = explore.Minimized{Result: found, Before: m.Before, After: m.Before, Runs: m.Runs}
	}
	return m, nil
}

// wrap turns a test body into the root function of an execution. If last
// is not nil, it receives the execution's T. The test has completed when
// the body returns: what its goroutines log to it after is go test's
// panic (see T.late). It is atomic: a Blocked
// execution's goroutines are abandoned, not ended, and may still run.
func wrap(body func(*T), cfg *config, last *atomic.Pointer[T]) func() {
	return func() {
		t := newT(cfg.name, cfg.sel)
		if last != nil {
			last.Store(t)
		}
		defer t.complete()
		defer t.waitParallel()
		body(t)
	}
}

// logs returns the messages logged by the execution.
func (t *T) logs() []string {
	t.x.mu.Lock()
	defer t.x.mu.Unlock()
	return append([]string(nil), t.x.logs...)
}

// Follow runs body once along schedule s (a Finding's Entry.Schedule, or a
// corpus entry's) and returns the execution, traced, with the places where
// it drifted from the schedule: a schedule is followed on changed code as
// far as it applies. Flags are not consulted.
func Follow(body func(*T), s sched.Schedule, opts ...Option) (*sched.Result, []string, error) {
	cfg, err := newConfig("Follow", opts, false)
	if err != nil {
		return nil, nil, err
	}
	r, drift, _ := follow(body, s, cfg)
	return r, drift, nil
}

// follow runs a saved schedule with the trace on, and returns what the
// execution wrote.
func follow(body func(*T), s sched.Schedule, cfg *config) (*sched.Result, []string, *T) {
	var last atomic.Pointer[T]
	opts := cfg.schedOptions()
	opts.Trace = true
	rp := explore.Follow(s, explore.ExplorationLag(cfg.lag))
	r := explore.Execute(wrap(body, cfg, &last), rp, opts)
	return r, rp.Drift(), last.Load()
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}
