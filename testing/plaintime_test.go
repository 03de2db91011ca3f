package weft

import (
	"testing"
	"time"

	"github.com/weftdev/weft/sim"
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

// Plain go test's exploration stops once its executions have run its
// events bound, after its first execution, unless Iterations was given:
// executions of ten times more goroutines are about ten times fewer, and
// the same ones on every run.
func TestPlainExplorationIsBoundedInEvents(t *testing.T) {
	sleepers := func(n int) func(*T) {
		return func(*T) {
			var wg sim.WaitGroup
			for range n {
				wg.Go(func() { sim.Sleep(time.Millisecond) })
			}
			wg.Wait()
		}
	}
	executions := func(n int, opts ...Option) int {
		t.Helper()
		cfg, err := newConfig("TestSleepers", opts, false)
		if err != nil {
			t.Fatal(err)
		}
		cfg.plainEvents = 20_000
		x, err := find(sleepers(n), cfg, nil, func(*Finding) {})
		if err != nil {
			t.Fatal(err)
		}
		return x.executions
	}
	if got := executions(10); got != defaultIterations {
		t.Errorf("10 goroutines: %d executions, want all %d", got, defaultIterations)
	}
	hundred, thousand := executions(100), executions(1000)
	if hundred < 30 || hundred > 45 || thousand < 3 || thousand > 5 {
		t.Errorf("100 goroutines: %d executions, 1,000: %d; want about 40 and 4 (20,000 events, 5 a goroutine)", hundred, thousand)
	}
	if again := executions(100); again != hundred {
		t.Errorf("100 goroutines: %d executions, then %d", hundred, again)
	}
	if got := executions(1000, Iterations(7)); got != 7 {
		t.Errorf("1,000 goroutines, Iterations(7): %d executions", got)
	}
}
