// Package simtest runs bodies under weft's controller over many seeds, for
// the tests of weft's primitives (package sim and below it).
package simtest

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/weftdev/weft/explore"
	"github.com/weftdev/weft/sched"
)

// A Strategy is a named maker of a strategy for one execution.
type Strategy struct {
	Name string
	Make func(seed uint64) sched.Strategy
}

// Strategies are the strategies the tests explore with.
var Strategies = []Strategy{
	{"random", func(seed uint64) sched.Strategy { return explore.RandomWalk(seed) }},
	{"pct", func(seed uint64) sched.Strategy { return explore.PCT(seed, 3, 64) }},
}

// A Checker collects the invariant violations of one execution. Its methods
// are called from controlled goroutines, which run one at a time; but the
// race detector does not see the controller's handoffs as ordering them
// (see package internal/race), so it takes a lock.
type Checker struct {
	mu   sync.Mutex
	errs []string
}

// Errorf records a violation.
func (c *Checker) Errorf(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.errs = append(c.errs, fmt.Sprintf(format, args...))
}

// Near records a violation unless got is want or at most a millisecond
// later: every event takes sched.Tick of virtual time, and timers fire at or
// after their deadline.
func (c *Checker) Near(what string, got, want time.Time) {
	if got.Before(want) || !got.Before(want.Add(time.Millisecond)) {
		c.Errorf("%s: got %v, want %v or a little later", what, got, want)
	}
}

// Epoch is the virtual clock's start in the executions ExploreAll runs, so
// that tests can name virtual times.
var Epoch = time.Date(2000, time.January, 1, 0, 0, 0, 0, time.UTC)

// Options are the options of the executions ExploreAll runs: a fixed
// epoch, and the controller checking its enabled set at every decision.
func Options() sched.Options { return sched.Options{Epoch: Epoch, Verify: true} }

// Equal records a violation unless got and want are deeply equal.
func (c *Checker) Equal(what string, got, want any) {
	if !reflect.DeepEqual(got, want) {
		c.Errorf("%s: got %v, want %v", what, got, want)
	}
}

// ExploreAll runs body for seeds executions under every strategy, and fails
// t at the first execution that reports a failure or breaks an invariant.
// It returns the results.
func ExploreAll(t testing.TB, seeds int, body func(c *Checker)) []*sched.Result {
	t.Helper()
	var rs []*sched.Result
	for _, s := range Strategies {
		for seed := range uint64(seeds) {
			c := &Checker{}
			r := sched.Run(func() { body(c) }, s.Make(seed), Options())
			if r.Failure != nil {
				t.Fatalf("%s seed %d: unexpected failure: %s\n%s", s.Name, seed, r.Failure.Summary(), r.Failure.Stack)
			}
			if len(c.errs) > 0 {
				t.Fatalf("%s seed %d: %s", s.Name, seed, strings.Join(c.errs, "\n"))
			}
			rs = append(rs, r)
		}
	}
	return rs
}
