package sim_test

import (
	"testing"

	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
)

// A channel that outlives an execution (a package variable: ants' default
// pool's allDone) and that the execution closed stays closed for the
// executions after it and for plain mode, as the package's atomics keep
// what the execution stored.
func TestCloseCarriesOver(t *testing.T) {
	done := sim.NewChan[struct{}](0) // made before any execution, as at init
	if r := runOnce(func() { done.Close() }); r.Failure != nil {
		t.Fatal(r.Failure.Summary())
	}
	var ok bool
	r := runOnce(func() { _, ok = done.RecvOK() })
	if r.Failure != nil {
		t.Fatalf("the next execution does not see the close: %s", r.Failure.Summary())
	}
	if ok {
		t.Error("the next execution received a value from a closed channel")
	}
	// Plain mode receives at once (were it open, this would block).
	if _, ok := done.RecvOK(); ok {
		t.Error("plain mode received a value from a closed channel")
	}
	// Closing it again is Go's panic, in an execution as in plain mode.
	r = runOnce(func() { done.Close() })
	wantFailure(t, r, sched.Panic, "")
}
