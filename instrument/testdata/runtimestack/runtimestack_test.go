package runtimestack

import (
	"reflect"
	"slices"
	"testing"
)

// TestStackAsGoTest: the test function, called by testing.tRunner, as
// under go test (zap's caller skips count on it).
func TestStackAsGoTest(t *testing.T) {
	want := []string{"example.com/runtimestack.TestStackAsGoTest", "testing.tRunner", "runtime.goexit"}
	if fns := Callers(); !slices.Equal(fns, want) {
		t.Errorf("stack %q, want %q", fns, want)
	}
}

// TestDeepEqualOfAtomics: two levels of one value are deeply equal, as
// under go test (zap's TestParseAtomicLevel).
func TestDeepEqualOfAtomics(t *testing.T) {
	if !reflect.DeepEqual(NewLevel(1), NewLevel(1)) {
		t.Error("two levels of 1 differ")
	}
}

// TestFuncForPC: the test function's name, not its body's closure's, as
// under go test (rs/zerolog's pkgerrors tests, through pkg/errors).
func TestFuncForPC(t *testing.T) {
	if name := CallerName(); name != "example.com/runtimestack.TestFuncForPC" {
		t.Errorf("caller %q, want example.com/runtimestack.TestFuncForPC", name)
	}
}
