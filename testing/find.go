package weft

import (
	"fmt"
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
	// Executions counts the executions explored, the failing one included.
	Executions int
	// Found is the failing execution as exploration found it.
	Found *explore.Finding
	// Minimized tells how the schedule shrank.
	Minimized explore.Minimized
	// Final is a traced replay of the minimized schedule: its Trace holds
	// every event with its call site.
	Final *sched.Result
	// Nondeterminism is set when replays of the minimized schedule did not
	// all give the same execution.
	Nondeterminism error
	// Logs are the messages the body logged in the final replay.
	Logs []string
	// Entry is the corpus entry to save.
	Entry *corpus.Entry
	// Recorded describes the recorded free run the failure came from, for
	// findings of -record and RecordRuns; nil for explored ones.
	Recorded *Recording
}

// Find explores body as Check would, without a *testing.T and without
// saving anything: it returns the minimized failure, or nil if every
// execution of the budget (Iterations, default 100) passed. Flags are not
// consulted. Tests of weft itself, and tools, use it.
func Find(body func(*T), opts ...Option) (*Finding, error) {
	cfg, err := newConfig("Find", opts, false)
	if err != nil {
		return nil, err
	}
	f, _, err := find(body, cfg, nil)
	return f, err
}

// find runs the pipeline: explore, minimize, verify, trace. It also returns
// the exploration's summary.
func find(body func(*T), cfg *config, progress func(time.Duration, int)) (*Finding, explore.Summary, error) {
	ec := cfg.exploreConfig()
	ec.Progress = progress
	sum, err := explore.Run(wrap(body, cfg.name, nil), ec)
	if err != nil || sum.Finding == nil {
		return nil, sum, err
	}
	return minimize(body, cfg, sum.Finding, sum.Executions), sum, nil
}

func minimize(body func(*T), cfg *config, found *explore.Finding, executions int) *Finding {
	opts := cfg.schedOptions()
	plain := wrap(body, cfg.name, nil)
	m := explore.Minimize(plain, found.Result, explore.MinimizeConfig{Options: opts})
	f := &Finding{Executions: executions, Found: found, Minimized: m}

	// Verify determinism, then replay once more with the trace on for the
	// report and for the sites in the saved schedule. Tracing does not
	// change the execution, so the hash must still agree.
	if found.Result.Failure.Kind != sched.Blocked {
		_, f.Nondeterminism = explore.Verify(plain, m.Result.Schedule, m.Result, 2, opts)
	}
	var last atomic.Pointer[T]
	traced := opts
	traced.Trace = true
	f.Final = sched.Run(wrap(body, cfg.name, &last), explore.Replay(m.Result.Schedule), traced)
	if f.Final.Failure == nil || f.Final.Failure.Signature() != m.Result.Failure.Signature() {
		// Not reproducible: keep what minimization saw.
		if f.Nondeterminism == nil {
			f.Nondeterminism = fmt.Errorf("the traced replay did not fail the same way: %s", f.Final.Failure.Summary())
		}
		f.Final = m.Result
	}
	f.Logs = logsOf(&last)
	f.Failure = f.Final.Failure
	f.Entry = &corpus.Entry{
		Test:        cfg.name,
		Found:       corpus.Found{Strategy: found.Strategy, Seed: found.Seed, Iteration: found.Iteration, Depth: found.Depth},
		Failure:     f.Failure.Summary(),
		Signature:   f.Failure.Signature(),
		Preemptions: m.After,
		Original:    m.Before,
		Hash:        f.Final.Hash,
		Schedule:    f.Final.Schedule,
	}
	return f
}

// wrap turns a test body into the root function of an execution. If last
// is not nil, it receives the execution's T. It is atomic: a Blocked
// execution's goroutines are abandoned, not ended, and may still run.
func wrap(body func(*T), name string, last *atomic.Pointer[T]) func() {
	return func() {
		t := newT(name)
		if last != nil {
			last.Store(t)
		}
		body(t)
	}
}

// logsOf returns the messages logged by the execution's T in *last.
func logsOf(last *atomic.Pointer[T]) []string {
	t := last.Load()
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.logs...)
}

// Replay runs body once along schedule s (a Finding's Entry.Schedule, or a
// corpus entry's) and returns the execution, traced, with the places where
// it drifted from the schedule: a schedule replays on changed code as far as
// it applies. Flags are not consulted.
func Replay(body func(*T), s sched.Schedule, opts ...Option) (*sched.Result, []string, error) {
	cfg, err := newConfig("Replay", opts, false)
	if err != nil {
		return nil, nil, err
	}
	r, drift, _ := replay(body, s, cfg)
	return r, drift, nil
}

// replay runs a saved schedule with the trace on.
func replay(body func(*T), s sched.Schedule, cfg *config) (*sched.Result, []string, []string) {
	var last atomic.Pointer[T]
	opts := cfg.schedOptions()
	opts.Trace = true
	rp := explore.Replay(s)
	r := sched.Run(wrap(body, cfg.name, &last), rp, opts)
	return r, rp.Drift(), logsOf(&last)
}
