package weft_test

import (
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/weftdev/weft/sim"
	weft "github.com/weftdev/weft/testing"
)

func TestFatalInASubtestEndsTheSubtest(t *testing.T) {
	t.Parallel()
	var passed []bool
	var after sim.Var[bool]
	f, err := weft.Find(func(t *weft.T) {
		passed = passed[:0]
		passed = append(passed, t.Run("fails", func(t *weft.T) {
			t.Fatalf("stop the subtest")
			t.Errorf("not reached")
		}))
		passed = append(passed, t.Run("passes", func(t *weft.T) {
			if t.Name() != "Find/passes" {
				t.Errorf("name %q", t.Name())
			}
		}))
		after.Store(true)
	}, weft.Iterations(1))
	if err != nil || f == nil {
		t.Fatalf("no failure: %v", err)
	}
	if f.Failure.Message != "stop the subtest" || f.Failure.Goroutine != "0.1" || len(f.Final.More) != 0 {
		t.Fatalf("failure %s, then %d more", f.Failure.Summary(), len(f.Final.More))
	}
	if !slices.Equal(passed, []bool{false, true}) || !after.Load() {
		t.Fatalf("subtests passed %v; the body went on after them: %v", passed, after.Load())
	}
}

func TestLogsOfSubtestsAreKeptInOrder(t *testing.T) {
	t.Parallel()
	f, err := weft.Find(func(t *weft.T) {
		t.Logf("before")
		t.Run("sub", func(t *weft.T) {
			t.Logf("inside")
		})
		t.Logf("after")
		t.Errorf("fail")
	}, weft.Iterations(1))
	if err != nil || f == nil {
		t.Fatalf("no failure: %v", err)
	}
	var got []string
	for _, l := range f.Logs {
		_, msg, _ := strings.Cut(l, ": ")
		got = append(got, msg)
	}
	if !slices.Equal(got, []string{"before", "inside", "after"}) {
		t.Fatalf("logs %q", f.Logs)
	}
	if !strings.HasPrefix(f.Logs[0], "subtest_test.go:") {
		t.Errorf("log site %q", f.Logs[0])
	}
}

// TestParallelSubtestsMeet: parallel subtests run together once their
// parent's function has returned, as under go test, and the parent's Run
// returns once they have completed. Here one hands the other a value;
// before, Parallel did nothing, the subtests ran one after the other, and
// the receiver waited forever (a deadlock, which go test never sees).
func TestParallelSubtestsMeet(t *testing.T) {
	t.Parallel()
	f, err := weft.Find(func(t *weft.T) {
		ch := sim.NewChan[int](0)
		var done atomic.Int32
		ok := t.Run("group", func(t *weft.T) {
			went := t.Run("receiver", func(t *weft.T) {
				t.Parallel()
				if v := ch.Recv(); v != 1 {
					t.Errorf("received %d", v)
				}
				done.Add(1)
			})
			t.Run("sender", func(t *weft.T) {
				t.Parallel()
				ch.Send(1)
				done.Add(1)
			})
			if !went || done.Load() != 0 {
				t.Errorf("Run returned %v, %d parallel subtests done before the parent's function returned", went, done.Load())
			}
		})
		if !ok || done.Load() != 2 {
			t.Errorf("the group passed: %v, with %d of its 2 subtests done", ok, done.Load())
		}
	}, weft.Iterations(50))
	if err != nil || f != nil {
		t.Fatalf("failure %v (%v)", f, err)
	}
}
