package twolockqueue_test

import (
	"testing"

	"github.com/weftdev/weft/examples/internal/lintest"
	"github.com/weftdev/weft/examples/twolockqueue"
	"github.com/weftdev/weft/lin"
	"github.com/weftdev/weft/sched"
)

// TestFixed is how the fixed queue is tested: plain go test replays the
// saved cases, then tries rapid's scenarios (-rapid.checks, 100 by
// default).
func TestFixed(t *testing.T) {
	lin.Check(t, twolockqueue.Spec(twolockqueue.New))
}

// TestBugIsFound checks that the lost element is found, shrunk, saved and
// replayed, and that the fix passes.
func TestBugIsFound(t *testing.T) {
	lintest.Check(t, twolockqueue.Spec(twolockqueue.NewRacy), twolockqueue.Spec(twolockqueue.New), sched.Error)
}
