package weft

import (
	"sync/atomic"
	"testing"
	"time"
)

// Plain returns a TB for t outside weft's controller, reporting to t: a
// fuzz target instrumented by weft test keeps its *testing.T, which
// testing.F.Fuzz requires, and hands this TB to the helpers the rewrite
// made take one (so does a test that runs in a synctest bubble). Errors,
// logs, Skip and Cleanup go to t; the file:line of the caller leads each
// message.
func Plain(t *testing.T) *TB {
	wt := newT(t.Name(), selection{})
	wt.x.std = t
	tb := &TB{TB: t, t: wt, skipped: new(atomic.Pointer[string])}
	t.Cleanup(tb.runCleanups)
	return tb
}

// forward reports an error of a T made by Plain to its test.
func (x *execution) forward(site, msg string, fatal bool) {
	if site != "" {
		msg = site + ": " + msg
	}
	if fatal {
		x.std.Fatal(msg)
	}
	x.std.Error(msg)
}

// Std returns the test's own *testing.T, for a function weft does not
// instrument that wants one: what it reports goes to the test directly,
// not to the execution.
func (tb *TB) Std() *testing.T {
	t, _ := tb.TB.(*testing.T)
	return t
}

// Deadline reports the test's deadline, as testing.T.Deadline does.
func (tb *TB) Deadline() (time.Time, bool) {
	if t := tb.Std(); t != nil {
		return t.Deadline()
	}
	return time.Time{}, false
}
