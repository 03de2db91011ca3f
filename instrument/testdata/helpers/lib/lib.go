// Package lib is a library weft does not instrument, with assert helpers
// of both kinds: taking an interface, as testify's do, and taking
// *testing.T.
package lib

import "testing"

// TestingT is what the assertions need.
type TestingT interface {
	Errorf(format string, args ...any)
	Helper()
}

// Equal fails t if got differs from want.
func Equal(t TestingT, got, want any) bool {
	t.Helper()
	if got != want {
		t.Errorf("got %v, want %v", got, want)
		return false
	}
	return true
}

// True fails t if ok is false.
func True(t *testing.T, ok bool) {
	t.Helper()
	if !ok {
		t.Error("not true")
	}
}

// TB fails tb if ok is false.
func TB(tb testing.TB, ok bool) {
	tb.Helper()
	if !ok {
		tb.Error("not true")
	}
}
