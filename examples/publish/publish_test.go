package publish_test

import (
	"testing"

	"github.com/weftdev/weft/examples/internal/bugtest"
	"github.com/weftdev/weft/examples/publish"
	weft "github.com/weftdev/weft/testing"
)

// TestFixed is how the fixed code is tested: plain go test (-race) replays
// the saved schedules, then explores a little.
func TestFixed(t *testing.T) {
	t.Parallel()
	weft.Check(t, publish.Fixed)
}

// TestBuggy explores the buggy code, in the child process of
// TestBugIsFound.
func TestBuggy(t *testing.T) { bugtest.Buggy(t, publish.Buggy) }

// TestBugIsFound checks that weft finds the race of the buggy code, under
// go test -race.
func TestBugIsFound(t *testing.T) {
	t.Parallel()
	bugtest.CheckRace(t, "TestBuggy", publish.Fixed)
}
