package weft

import (
	"sync/atomic"
	"testing"
	"time"
)

// Plain returns a TB for t outside weft's controller, reporting to t: a
// fuzz target instrumented by weft test keeps its *testing.T, which
// testing.F.Fuzz requires, and hands this TB to the helpers the rewrite
// made take one. Errors, logs, Skip and Cleanup go to t; the file:line of
// the caller leads each message.
func Plain(t *testing.T) *TB {
	tb := &TB{TB: t, t: &T{name: t.Name(), helpers: map[string]bool{}, std: t}, name: t.Name(), skipped: new(atomic.Pointer[string])}
	t.Cleanup(tb.runCleanups)
	return tb
}

// forward reports an error of a T made by Plain to its test.
func (t *T) forward(site, msg string, fatal bool) {
	if site != "" {
		msg = site + ": " + msg
	}
	if fatal {
		t.std.Fatal(msg)
	}
	t.std.Error(msg)
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
