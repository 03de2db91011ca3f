package explore_test

import (
	"testing"
	"time"

	"github.com/weftdev/weft/explore"
	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
)

// eventsOf runs an exploration of body in the calling process alone and
// returns the events of each execution, by index.
func eventsOf(t *testing.T, body func(), cfg explore.Config) (explore.Summary, []int) {
	t.Helper()
	var steps []int
	cfg.Executed = func(i int, r *sched.Result) {
		if i != len(steps) {
			t.Errorf("execution %d seen after %d", i, len(steps))
		}
		steps = append(steps, r.Steps)
	}
	s, err := explore.Run(body, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if s.Executions != len(steps) {
		t.Fatalf("%d executions, %d seen", s.Executions, len(steps))
	}
	return s, steps
}

// An events budget ends the exploration with the first execution that
// reaches it, whatever the executions cost in time: the same executions
// run every time.
func TestEventsBoundTheExploration(t *testing.T) {
	t.Parallel()
	const budget = 2000
	var failed bool
	body := transfer(&failed) // its executions differ in events
	for _, strategy := range explore.Strategies {
		cfg := explore.Config{Strategy: strategy, Seed: 3, Iterations: 1000, Events: budget}
		s, steps := eventsOf(t, body, cfg)
		sum := 0
		for i, n := range steps {
			if sum >= budget {
				t.Fatalf("%s: execution %d ran after %d events, budget %d", strategy, i, sum, budget)
			}
			sum += n
		}
		if sum < budget {
			t.Fatalf("%s: %d executions ran %d events and stopped, budget %d", strategy, len(steps), sum, budget)
		}
		again, _ := eventsOf(t, body, cfg)
		if again.Executions != s.Executions {
			t.Fatalf("%s: %d executions, then %d", strategy, s.Executions, again.Executions)
		}
		// The iteration budget still ends it first when it is smaller.
		cfg.Iterations = 3
		if s, _ := eventsOf(t, body, cfg); s.Executions != 3 {
			t.Fatalf("%s: %d executions of 3", strategy, s.Executions)
		}
	}
}

// sleepers starts n goroutines that each sleep and call Done, as
// shared/repros/manygo does.
func sleepers(n int) func() {
	return func() {
		var wg sim.WaitGroup
		for range n {
			wg.Add(1)
			sim.Go(func() {
				defer wg.Done()
				sim.Sleep(time.Millisecond)
			})
		}
		wg.Wait()
	}
}

// With an events budget, an exploration of executions of n goroutines
// runs as many events whatever n: the executions of a hundred times more
// goroutines are a hundred times fewer, instead of a hundred times longer.
func TestEventsOfAnExplorationDoNotGrowWithItsGoroutines(t *testing.T) {
	t.Parallel()
	const budget = 30_000
	for _, n := range []int{10, 100, 1000} {
		s, steps := eventsOf(t, sleepers(n), explore.Config{Seed: 1, Iterations: 100_000, Events: budget})
		sum := 0
		for _, e := range steps {
			sum += e
		}
		if want := 5*n + 3; steps[0] != want {
			t.Fatalf("n=%d: %d events an execution, want %d", n, steps[0], want)
		}
		if sum < budget || sum >= budget+steps[0] {
			t.Fatalf("n=%d: %d executions ran %d events, budget %d", n, s.Executions, sum, budget)
		}
		if want := (budget + steps[0] - 1) / steps[0]; s.Executions != want {
			t.Fatalf("n=%d: %d executions, want %d", n, s.Executions, want)
		}
		t.Logf("n=%d: %d executions, %d events", n, s.Executions, sum)
	}
}

// An exploration that goes on past rejected failures keeps to its events
// budget: the executions after each failure run under what is left of it.
func TestEventsBoundAnExplorationPastRejectedFailures(t *testing.T) {
	t.Parallel()
	const budget = 3000
	rejected := 0
	cfg := explore.Config{Seed: 3, Iterations: 10_000, Events: budget, Accept: func(*explore.Finding) bool {
		rejected++
		return false
	}}
	s, steps := eventsOf(t, ordered, cfg)
	sum, most := 0, 0
	for _, n := range steps {
		sum, most = sum+n, max(most, n)
	}
	if rejected == 0 || len(s.Rejected) != rejected {
		t.Fatalf("%d failures rejected, %d in the summary: want some", rejected, len(s.Rejected))
	}
	if sum < budget || sum >= budget+most {
		t.Fatalf("%d executions ran %d events, budget %d", s.Executions, sum, budget)
	}
}
