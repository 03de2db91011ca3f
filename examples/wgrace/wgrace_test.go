package wgrace_test

import (
	"testing"

	"github.com/weftdev/weft/examples/internal/bugtest"
	"github.com/weftdev/weft/examples/wgrace"
	"github.com/weftdev/weft/internal/race"
	"github.com/weftdev/weft/sched"
	weft "github.com/weftdev/weft/testing"
)

// TestFixed is how the fixed code is tested: plain go test replays the
// saved schedules, then explores a little.
func TestFixed(t *testing.T) {
	t.Parallel()
	weft.Check(t, wgrace.Fixed)
}

// TestBuggy explores the buggy code, in the child process of
// TestBugIsFound under go test -race.
func TestBuggy(t *testing.T) { bugtest.Buggy(t, wgrace.Buggy) }

// TestBugIsFound checks that weft finds the bug of the buggy code: the sum
// it gets wrong, or under go test -race, as sync.WaitGroup shows it there,
// the race of an Add from zero with a Wait that blocks (found in a child
// process, where its report fails no other test).
func TestBugIsFound(t *testing.T) {
	t.Parallel()
	if race.Enabled {
		bugtest.CheckRace(t, "TestBuggy", wgrace.Fixed)
		return
	}
	bugtest.Check(t, wgrace.Buggy, wgrace.Fixed, sched.Error)
}
