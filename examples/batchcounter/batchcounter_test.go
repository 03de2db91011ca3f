package batchcounter_test

import (
	"testing"

	"github.com/weftdev/weft/examples/batchcounter"
	"github.com/weftdev/weft/examples/internal/lintest"
	"github.com/weftdev/weft/lin"
	"github.com/weftdev/weft/sched"
)

// TestFixed is how the fixed counter is tested: plain go test replays the
// saved cases, then tries rapid's scenarios.
func TestFixed(t *testing.T) {
	lin.Check(t, batchcounter.Spec(batchcounter.New))
}

// TestBugIsFound checks that the batch counted twice is found, shrunk, saved and
// replayed, and that the fix passes.
func TestBugIsFound(t *testing.T) {
	lintest.Check(t, batchcounter.Spec(batchcounter.NewRacy), batchcounter.Spec(batchcounter.New), sched.Error)
}
