// Package hitcounter is a data race on a counter: request handlers count
// their hits in a plain int. Under weft's controller each increment runs
// between two events, alone, so no hit is ever lost and the count is always
// right: only the race detector sees the bug (go test -race), in the very
// first execution, since nothing orders the two handlers' increments.
package hitcounter

import (
	"github.com/weftdev/weft/sim"
	weft "github.com/weftdev/weft/testing"
)

// RacyStats counts in a plain int: the bug.
type RacyStats struct{ hits int }

// Hit counts one hit.
func (s *RacyStats) Hit() { s.hits++ }

// Hits returns the count.
func (s *RacyStats) Hits() int { return s.hits }

// Stats counts with an atomic: the fix.
type Stats struct{ hits sim.Int64 }

// Hit counts one hit.
func (s *Stats) Hit() { s.hits.Add(1) }

// Hits returns the count.
func (s *Stats) Hits() int { return int(s.hits.Load()) }

type stats interface {
	Hit()
	Hits() int
}

// Buggy is the test body that finds the bug.
func Buggy(t *weft.T) { serveTwo(t, &RacyStats{}) }

// Fixed is the same test of the fixed code.
func Fixed(t *weft.T) { serveTwo(t, &Stats{}) }

func serveTwo(t *weft.T, s stats) {
	var wg sim.WaitGroup
	for range 2 {
		wg.Go(s.Hit)
	}
	wg.Wait()
	if n := s.Hits(); n != 2 {
		t.Errorf("%d hits counted, want 2", n)
	}
}
