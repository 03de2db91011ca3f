// Package instrhelp holds test helpers in a non-test file of another
// package of the module, which weft instruments.
package instrhelp

import "testing"

// Equal fails t if got differs from want.
func Equal(t *testing.T, got, want int) {
	t.Helper()
	if got != want {
		t.Errorf("got %d, want %d", got, want)
	}
}

// Fixture is a helper that keeps its test.
type Fixture struct {
	t    *testing.T
	done chan int
}

// New returns a fixture whose Wait waits for a value sent by a goroutine.
func New(t *testing.T) *Fixture {
	f := &Fixture{t: t, done: make(chan int)}
	go func() { f.done <- 42 }()
	return f
}

// Wait checks the value.
func (f *Fixture) Wait() { Equal(f.t, <-f.done, 42) }

// Detached checks on a T of its own, as cockroachdb/datadriven's Rewrite
// runs its test on &testing.T{}.
func Detached() *testing.T {
	t := &testing.T{}
	Equal(t, 1, 1)
	return t
}
