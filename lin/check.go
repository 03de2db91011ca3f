package lin

import (
	"testing"

	"github.com/anishathalye/porcupine"
	"pgregory.net/rapid"

	"github.com/weftdev/weft/corpus"
	"github.com/weftdev/weft/sched"
	weft "github.com/weftdev/weft/testing"
)

// Check tests that the object sp declares is linearizable: that every
// execution of every scenario weft tries behaves as if its operations
// took effect one at a time, in an order that respects real time, each
// with the result the sequential model gives it.
//
// Scenarios (operations run before, during and after a few goroutines run
// theirs at once) and their schedules are drawn by pgregory.net/rapid and
// run under weft's schedule controller, as weft.PropertyCases runs cases;
// each execution's history of calls and returns, in the order of its
// events, is checked against the model by porcupine. A failure is a
// history no order explains, and also anything weft finds on the way: an
// operation that panics, or that blocks for good (a deadlock: operations
// must not block). It is shrunk to fewer operations, goroutines and
// preemptions by rapid's shrinker, saved under testdata/weft/<TestName>/
// with its inputs and schedule, replayed by later go test runs, and
// reported with the history as one column per goroutine, the interleaving,
// and porcupine's visualization of the history as an HTML file.
//
// The object may be written with weft's sim primitives, or in plain Go
// and tested under weft test, which rewrites its package to them. opts are
// weft's options (Iterations caps the scenarios).
func Check[O, S any](t *testing.T, sp Spec[O, S], opts ...weft.Option) {
	t.Helper()
	if err := sp.validate(); err != nil {
		t.Fatal(err)
	}
	weft.PropertyCases(t, sp.cases(t.Name()), opts...)
}

// Find runs Check's scenarios without a *testing.T and without saving
// anything: it returns the shrunk failure, or nil if every scenario of the
// budget passed (weft.Iterations, default 100). Tests of the checker, and
// tools, use it.
func Find[O, S any](sp Spec[O, S], opts ...weft.Option) (*weft.Finding, error) {
	if err := sp.validate(); err != nil {
		return nil, err
	}
	return weft.FindCases(sp.cases("Find"), opts...)
}

// Follow runs the scenario of a corpus entry saved by Check (or a
// Finding's Entry) once, along its schedule, and returns the execution,
// its failure (a violation included), and where it drifted from the
// schedule. t receives rapid's log of the draws.
func Follow[O, S any](t *testing.T, sp Spec[O, S], e *corpus.Entry, opts ...weft.Option) (*sched.Result, *sched.Failure, []string, error) {
	if err := sp.validate(); err != nil {
		return nil, nil, nil, err
	}
	return weft.FollowCase(t, sp.cases(t.Name()), e, opts...)
}

// cases returns the cases of the spec for weft.PropertyCases: a scenario
// drawn from r, run, then checked.
func (sp *Spec[O, S]) cases(name string) func(r *rapid.T) weft.Case {
	draw := sp.drawCases(name)
	return func(r *rapid.T) weft.Case { return draw(r).Case }
}

// A drawn case is a case with the scenario it runs.
type drawn struct {
	weft.Case
	scenario *scenario
}

func (sp *Spec[O, S]) drawCases(name string) func(r *rapid.T) drawn {
	model := sp.model()
	return func(r *rapid.T) drawn {
		s := drawScenario(r, sp)
		h, body := runScenario(sp, s)
		return drawn{scenario: s, Case: weft.Case{
			Inputs: s.describe(),
			Body:   body,
			After: func() error {
				if porcupine.CheckOperations(model, operations(h.records())) {
					return nil
				}
				return &violation{name: name, model: model, history: h, s: s}
			},
		}}
	}
}
