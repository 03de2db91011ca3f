// Package bugtest checks an example the way weft's README promises: weft
// finds the bug, reports it as the right kind of failure, saves a schedule
// that reproduces it deterministically, and never flags the fixed code, not
// even along the schedule that breaks the buggy one.
package bugtest

import (
	"testing"

	"github.com/weftdev/weft/corpus"
	"github.com/weftdev/weft/internal/racetest"
	"github.com/weftdev/weft/sched"
	weft "github.com/weftdev/weft/testing"
)

// Check runs the checks on an example's buggy and fixed test bodies.
func Check(t *testing.T, buggy, fixed func(*weft.T), kind sched.FailureKind) {
	t.Helper()
	f, err := weft.Find(buggy, weft.Iterations(5000))
	if err != nil {
		t.Fatal(err)
	}
	if f == nil {
		t.Fatal("weft did not find the bug in 5000 executions")
	}
	if f.Failure.Kind != kind {
		t.Fatalf("found %s, want a %s", f.Failure.Summary(), kind)
	}
	if f.Nondeterminism != nil {
		t.Fatalf("the finding does not replay deterministically: %v", f.Nondeterminism)
	}
	if f.Minimized.After > f.Minimized.Before {
		t.Errorf("minimization went from %d to %d preemptions", f.Minimized.Before, f.Minimized.After)
	}

	// Saved and read back, the schedule fails the same way, every time.
	path, err := corpus.Write(t.TempDir(), f.Entry)
	if err != nil {
		t.Fatal(err)
	}
	entry, err := corpus.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		r, drift, err := weft.Follow(buggy, entry.Schedule)
		if err != nil {
			t.Fatal(err)
		}
		if r.Failure == nil || r.Failure.Signature() != entry.Signature || r.Hash != entry.Hash || len(drift) > 0 {
			t.Fatalf("run %d along the saved schedule: %s (hash %#x, drift %q), want %s (hash %#x)",
				i+1, r.Failure.Summary(), r.Hash, drift, entry.Failure, entry.Hash)
		}
	}

	// The fix survives the schedule that breaks the bug, and exploration.
	if r, _, _ := weft.Follow(fixed, entry.Schedule); r.Failure != nil {
		t.Errorf("the fixed code fails along the buggy code's schedule: %s", r.Failure.Summary())
	}
	if f, err := weft.Find(fixed, weft.Iterations(500)); err != nil || f != nil {
		t.Errorf("weft flags the fixed code: %v", describe(f, err))
	}
}

func describe(f *weft.Finding, err error) string {
	if err != nil {
		return err.Error()
	}
	return f.Failure.Summary()
}

// CheckRace runs the checks on an example whose bug is a data race, which
// only the race detector reports (go test -race; without it, CheckRace
// skips): weft finds it, reports it as a race, saves a schedule that
// reproduces it with the same race, and neither that schedule nor
// exploration ever flags the fixed code. The race is found and replayed in
// a child process (see package racetest), by buggyTest, the name of the
// package's test function that runs weft.Check on the buggy code there.
func CheckRace(t *testing.T, buggyTest string, fixed func(*weft.T)) {
	t.Helper()
	entries := racetest.Check(t, "^"+buggyTest+"$", []string{buggyTest}, "-explore.iters=5000")
	e := entries[buggyTest]
	if e == nil {
		return
	}
	if r, _, _ := weft.Follow(fixed, e.Schedule); r.Failure != nil {
		t.Errorf("the fixed code fails along the buggy code's schedule: %s", r.Failure.Summary())
	}
	if f, err := weft.Find(fixed, weft.Iterations(500)); err != nil || f != nil {
		t.Errorf("weft flags the fixed code: %v", describe(f, err))
	}
}

// Buggy runs weft.Check on an example's buggy code in the child process
// of CheckRace, and skips elsewhere: there its race would fail the test.
func Buggy(t *testing.T, buggy func(*weft.T)) {
	t.Helper()
	if !racetest.Child() {
		t.Skip("run by CheckRace, in a child process")
	}
	weft.Check(t, buggy)
}
