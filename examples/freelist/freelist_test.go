package freelist_test

import (
	"testing"

	"github.com/weftdev/weft/examples/freelist"
	"github.com/weftdev/weft/examples/internal/lintest"
	"github.com/weftdev/weft/lin"
	"github.com/weftdev/weft/sched"
)

// TestFixed is how the fixed stack is tested: plain go test replays the
// saved cases, then tries rapid's scenarios.
func TestFixed(t *testing.T) {
	lin.Check(t, freelist.Spec(freelist.New))
}

// TestBugIsFound checks that the element that comes back is found, shrunk, saved and
// replayed, and that the fix passes.
func TestBugIsFound(t *testing.T) {
	lintest.Check(t, freelist.Spec(freelist.NewRacy), freelist.Spec(freelist.New), sched.Error)
}
