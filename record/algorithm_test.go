package record_test

import (
	"strings"
	"testing"

	"github.com/weftdev/weft/record"
)

// The record package alone registers no algorithm: New says how to get
// them, and Register refuses an incomplete or duplicate algorithm.
func TestRegistry(t *testing.T) {
	if names := record.Algorithms(); len(names) != 0 {
		t.Fatalf("algorithms registered without their packages: %v", names)
	}
	if _, err := record.New("light"); err == nil || !strings.Contains(err.Error(), "record/all") {
		t.Fatalf("New with nothing registered: %v, want an error naming record/all", err)
	}
	a := record.Algorithm{
		Name: "test-nop",
		New:  func() record.Recorder { return nop{} },
		Plan: func(*record.Log) (record.Oracle, error) { return nil, nil },
	}
	record.Register(a)
	if got := record.Algorithms(); len(got) != 1 || got[0] != "test-nop" {
		t.Fatalf("Algorithms() = %v, want [test-nop]", got)
	}
	if rec, err := record.New("test-nop"); err != nil || rec.Algorithm() != "nop" {
		t.Fatalf("New(test-nop) = %v, %v", rec, err)
	}
	if _, err := record.New("light"); err == nil || !strings.Contains(err.Error(), "test-nop") {
		t.Fatalf("New of an unknown algorithm: %v, want an error listing test-nop", err)
	}
	mustPanic(t, "a duplicate", func() { record.Register(a) })
	mustPanic(t, "no planner", func() { record.Register(record.Algorithm{Name: "x", New: a.New}) })
}

func mustPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("Register accepted %s", what)
		}
	}()
	f()
}
