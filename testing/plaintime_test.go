package weft

import (
	"testing"
	"time"
)

// Plain go test's exploration stops once it has run for its time bound,
// after its first execution, unless Iterations was given: then every
// execution asked for runs.
func TestPlainExplorationIsBoundedInTime(t *testing.T) {
	slow := func(*T) { time.Sleep(20 * time.Millisecond) } // 100 take 2 s
	for _, c := range []struct {
		opts     []Option
		min, max int
	}{
		{nil, 1, defaultIterations - 1},
		{[]Option{Iterations(30)}, 30, 30},
	} {
		cfg, err := newConfig("TestSlow", c.opts, false)
		if err != nil {
			t.Fatal(err)
		}
		cfg.plainTime = 100 * time.Millisecond
		x, err := find(slow, cfg, nil, func(*Finding) {})
		if err != nil {
			t.Fatal(err)
		}
		if x.executions < c.min || x.executions > c.max {
			t.Errorf("options %d: %d executions, want %d to %d", len(c.opts), x.executions, c.min, c.max)
		}
	}
}
