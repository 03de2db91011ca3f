// Package lintest checks an example of a concurrent data structure the way
// the README promises for linearizability tests: weft finds the bug from
// scenarios nobody wrote, shrinks it, saves a case (inputs and schedule)
// that reproduces it deterministically, and never flags the fixed twin, not
// even along the buggy one's case.
package lintest

import (
	"testing"

	"github.com/weftdev/weft/corpus"
	"github.com/weftdev/weft/lin"
	"github.com/weftdev/weft/sched"
	weft "github.com/weftdev/weft/testing"
)

// Budgets of the checks: scenarios to find the bug in, and scenarios the
// fix must pass (go test -run TestFixed -rapid.checks N runs more).
const (
	FindBudget  = 5000
	FixedBudget = 300
)

// Check runs the checks on an example's buggy and fixed specs; kind is the
// kind of failure the bug is (sched.Error for a history that is not
// linearizable).
func Check[O, S any](t *testing.T, buggy, fixed lin.Spec[O, S], kind sched.FailureKind) *weft.Finding {
	t.Helper()
	f, err := lin.Find(buggy, weft.Iterations(FindBudget), weft.Name(t.Name()))
	if err != nil {
		t.Fatal(err)
	}
	if f == nil {
		t.Fatalf("weft did not find the bug in %d scenarios", FindBudget)
	}
	if f.Failure.Kind != kind {
		t.Fatalf("found %s, want a %s", f.Failure.Summary(), kind)
	}
	if f.Nondeterminism != nil || f.Entry == nil {
		t.Fatalf("the finding was not saved: %v", f.Nondeterminism)
	}
	t.Logf("found in scenario %d, shrunk from %s, %d preemptions to %s, %d preemptions",
		f.Property.Cases, f.Property.FirstInputs, f.Property.First.Schedule().Preemptions(), f.Property.Inputs, f.Final.Schedule().Preemptions())

	// Saved and read back, the case fails the same way, every time.
	path, err := corpus.Write(t.TempDir(), f.Entry)
	if err != nil {
		t.Fatal(err)
	}
	entry, err := corpus.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		r, failure, drift, err := lin.Follow(t, buggy, entry)
		if err != nil {
			t.Fatal(err)
		}
		if failure == nil || failure.Signature() != entry.Signature || r.Hash != entry.Hash || len(drift) > 0 {
			t.Fatalf("run %d along the saved case: %s (hash %#x, drift %q), want %s (hash %#x)",
				i+1, failure.Summary(), r.Hash, drift, entry.Failure, entry.Hash)
		}
	}

	// The fix survives the case that breaks the bug, and exploration.
	if _, failure, _, err := lin.Follow(t, fixed, entry); err != nil || failure != nil {
		t.Errorf("the fixed code fails along the buggy code's case: %s (%v)", failure.Summary(), err)
	}
	if f, err := lin.Find(fixed, weft.Iterations(FixedBudget)); err != nil || f != nil {
		if f != nil {
			t.Errorf("weft flags the fixed code: %s", f.Failure.Summary())
		}
		if err != nil {
			t.Error(err)
		}
	}
	return f
}
