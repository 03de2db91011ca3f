// Package deferorder is a result written after Done: each worker of a pool
// defers the write of its result, then defers wg.Done, and deferred calls
// run last in, first out, so Done comes first. Wait returns once the last
// Done ran, and the collector reads a result its worker is still to write:
// under weft's controller the worker always writes before the collector
// runs again, but the race detector (go test -race) reports the write
// racing with the read, since nothing orders the write after Done before
// the read after Wait.
package deferorder

import (
	"github.com/weftdev/weft/sim"
	weft "github.com/weftdev/weft/testing"
)

// RacySquares squares 0..n-1 in workers, deferring Done after the write of
// the result: Done runs first. The bug.
func RacySquares(n int) []int {
	results := make([]int, n)
	var wg sim.WaitGroup
	for i := range n {
		wg.Add(1)
		sim.Go(func() {
			r := 0
			defer func() { results[i] = r }()
			defer wg.Done()
			r = i * i
		})
	}
	wg.Wait()
	return results
}

// Squares defers Done first, so it runs last, after the write: the fix.
func Squares(n int) []int {
	results := make([]int, n)
	var wg sim.WaitGroup
	for i := range n {
		wg.Add(1)
		sim.Go(func() {
			r := 0
			defer wg.Done()
			defer func() { results[i] = r }()
			r = i * i
		})
	}
	wg.Wait()
	return results
}

// Buggy is the test body that finds the bug.
func Buggy(t *weft.T) { check(t, RacySquares(2)) }

// Fixed is the same test of the fixed code.
func Fixed(t *weft.T) { check(t, Squares(2)) }

func check(t *weft.T, squares []int) {
	for i, s := range squares {
		if s != i*i {
			t.Errorf("squares[%d] = %d", i, s)
		}
	}
}
