package weft_test

import (
	"strings"
	"sync/atomic"
	"testing"

	"github.com/weftdev/weft/examples/lostupdate"
	weft "github.com/weftdev/weft/testing"
)

// falseAlarm fails the first execution it runs and never again: a failure
// that depends on something weft does not control, which no replay shows.
func falseAlarm(calls *atomic.Int64) func(*weft.T) {
	return func(t *weft.T) {
		if calls.Add(1) == 1 {
			t.Errorf("the first run fails")
		}
	}
}

func TestFalseAlarmDoesNotHideTheBug(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	alarm := falseAlarm(&calls)
	f, err := weft.Find(func(t *weft.T) {
		alarm(t)
		lostupdate.Buggy(t)
	}, weft.Seed(3))
	if err != nil || f == nil {
		t.Fatalf("no failure: %v", err)
	}
	if f.Nondeterminism != nil || f.Entry == nil || !strings.Contains(f.Failure.Message, "want 2") {
		t.Fatalf("found %s (%v), entry %v", f.Failure.Summary(), f.Nondeterminism, f.Entry)
	}
	if len(f.Unreplayed) != 1 {
		t.Fatalf("%d failures passed over, want 1", len(f.Unreplayed))
	}
	u := f.Unreplayed[0]
	if u.Found.Iteration != 0 || u.Entry != nil || u.Nondeterminism == nil || !strings.Contains(u.Failure.Message, "the first run fails") {
		t.Fatalf("passed over execution %d: %s, %v", u.Found.Iteration, u.Failure.Summary(), u.Nondeterminism)
	}
}

func TestFailureThatDoesNotReplayIsNotSaved(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	f, err := weft.Find(falseAlarm(&calls))
	if err != nil || f == nil {
		t.Fatalf("no failure: %v", err)
	}
	if f.Nondeterminism == nil || f.Entry != nil || !strings.Contains(f.Nondeterminism.Error(), "differed") {
		t.Fatalf("found %s (%v), entry %v", f.Failure.Summary(), f.Nondeterminism, f.Entry)
	}
	// Every execution of the budget ran: the exploration looked on.
	if f.Executions != 100 || calls.Load() != 100+1 {
		t.Fatalf("%d executions, %d runs in all", f.Executions, calls.Load())
	}
}

// A test that fails in every execution and in no replay (it alternates)
// keeps a few of its failures for the report and counts the rest.
func TestEveryFailureThatDoesNotReplayIsCounted(t *testing.T) {
	t.Parallel()
	var calls atomic.Int64
	f, err := weft.Find(func(t *weft.T) {
		if calls.Add(1)%2 == 1 {
			t.Errorf("odd runs fail")
		}
	}, weft.Iterations(30))
	if err != nil || f == nil {
		t.Fatalf("no failure: %v", err)
	}
	if f.Entry != nil || f.Nondeterminism == nil {
		t.Fatalf("a failure that does not replay has an entry (%v)", f.Nondeterminism)
	}
	if kept := 1 + len(f.Unreplayed); kept+f.Unlisted != 30 || len(f.Unreplayed) > 8 || f.Unlisted == 0 {
		t.Fatalf("%d failures kept and %d counted, want 30 in all, at most 8 kept after the first", kept, f.Unlisted)
	}
}
