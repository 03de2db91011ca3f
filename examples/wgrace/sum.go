// Package wgrace is WaitGroup.Add racing Wait: each goroutine calls Add
// itself, so Wait can run before some have added and return before they are
// done.
package wgrace

import (
	"github.com/weftdev/weft/sim"
	weft "github.com/weftdev/weft/testing"
)

// RacySum adds up nums in parallel, calling wg.Add inside each goroutine:
// the bug.
func RacySum(nums []int64) int64 {
	var wg sim.WaitGroup
	var total sim.Int64
	for _, n := range nums {
		sim.Go(func() {
			wg.Add(1)
			defer wg.Done()
			total.Add(n)
		})
	}
	wg.Wait()
	return total.Load()
}

// Sum adds up nums in parallel, calling wg.Add before starting each
// goroutine: the fix.
func Sum(nums []int64) int64 {
	var wg sim.WaitGroup
	var total sim.Int64
	for _, n := range nums {
		wg.Add(1)
		sim.Go(func() {
			defer wg.Done()
			total.Add(n)
		})
	}
	wg.Wait()
	return total.Load()
}

// Buggy is the test body that finds the bug.
func Buggy(t *weft.T) { check(t, RacySum) }

// Fixed is the same test of the fixed code.
func Fixed(t *weft.T) { check(t, Sum) }

func check(t *weft.T, sum func([]int64) int64) {
	if got := sum([]int64{1, 2, 3}); got != 6 {
		t.Errorf("sum = %d, want 6", got)
	}
}
