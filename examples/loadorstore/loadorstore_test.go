package loadorstore_test

import (
	"testing"

	"github.com/weftdev/weft/examples/internal/lintest"
	"github.com/weftdev/weft/examples/loadorstore"
	"github.com/weftdev/weft/lin"
	"github.com/weftdev/weft/sched"
)

// TestFixed is how the fixed cache is tested: plain go test replays the
// saved cases, then tries rapid's scenarios.
func TestFixed(t *testing.T) {
	lin.Check(t, loadorstore.Spec(loadorstore.New))
}

// TestBugIsFound checks that the lost store is found, shrunk, saved and
// replayed, and that the fix passes.
func TestBugIsFound(t *testing.T) {
	lintest.Check(t, loadorstore.Spec(loadorstore.NewRacy), loadorstore.Spec(loadorstore.New), sched.Error)
}
