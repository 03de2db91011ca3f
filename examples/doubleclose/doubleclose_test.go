package doubleclose_test

import (
	"testing"

	"github.com/weftdev/weft/examples/doubleclose"
	"github.com/weftdev/weft/examples/internal/bugtest"
	"github.com/weftdev/weft/sched"
	weft "github.com/weftdev/weft/testing"
)

// TestFixed is how the fixed code is tested: plain go test replays the
// saved schedules, then explores a little.
func TestFixed(t *testing.T) {
	t.Parallel()
	weft.Check(t, doubleclose.Fixed)
}

// TestBugIsFound checks that weft finds the bug of the buggy code.
func TestBugIsFound(t *testing.T) {
	t.Parallel()
	bugtest.Check(t, doubleclose.Buggy, doubleclose.Fixed, sched.Panic)
}
