package explore_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/weftdev/weft/explore"
	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
)

// timed makes choices of every kind a strategy decides: which goroutine
// runs, yields (PCT lowers the yielder), when timers fire (a timeout against work, within and beyond the
// lags drawn), values and select cases.
func timed() {
	var wg sim.WaitGroup
	var v sim.Var[int]
	ch := sim.NewChan[int](1)
	for i := range 3 {
		wg.Go(func() {
			v.Store(v.Load() + sim.Intn(3))
			sim.Yield()
			sim.Sleep(time.Duration(i+1) * time.Millisecond)
			sim.Select(sim.OnSend(ch, i, nil), sim.OnRecv(sim.After(2*time.Millisecond), nil))
		})
	}
	sim.Go(func() {
		for range 3 {
			sim.Select(sim.OnRecv(ch, nil), sim.OnRecv(sim.After(10*time.Millisecond), nil))
		}
	})
	wg.Wait()
}

// A recycled strategy decides as the one New makes, whatever the
// strategies it served before: same hash and schedule, for every strategy,
// depth, estimate and lag.
func TestRecycledStrategies(t *testing.T) {
	var r explore.Recycler
	for _, name := range explore.Strategies {
		for _, lag := range []time.Duration{0, -1, 50 * time.Microsecond} {
			for seed := range uint64(16) {
				depth, steps := 1+int(seed%5), 1+int(seed*7%40)
				fresh, err := explore.New(name, seed, depth, steps, explore.ExplorationLag(lag))
				if err != nil {
					t.Fatal(err)
				}
				a := sched.Run(timed, fresh, sched.Options{})
				b := sched.Run(timed, r.Strategy(name, seed, depth, steps, lag), sched.Options{})
				what := fmt.Sprintf("%s, lag %v, seed %d", name, lag, seed)
				if a.Failure != nil || b.Failure != nil {
					t.Fatalf("%s: %s / %s", what, a.Failure.Summary(), b.Failure.Summary())
				}
				if a.Hash != b.Hash || !slices.Equal(a.Schedule(), b.Schedule()) {
					t.Fatalf("%s: recycled %#x (%d choices), new %#x (%d choices)", what, b.Hash, len(b.Schedule()), a.Hash, len(a.Schedule()))
				}
			}
		}
	}
	if r.Strategy("nosuch", 1, 3, 10, 0) != nil {
		t.Error("an unknown strategy name made a strategy")
	}
}

// The failing execution an exploration reports is never recycled, though
// the workers' executions after it release theirs: its schedule replays
// to the same hash and failure.
func TestFindingOutlivesLaterExecutions(t *testing.T) {
	t.Parallel()
	for _, workers := range []int{1, 3} {
		cfg := explore.Config{Strategy: explore.StrategyRandom, Seed: 5, Iterations: 3000, Continue: true}
		var found []*explore.Finding
		cfg.Accept = func(f *explore.Finding) bool {
			found = append(found, f)
			return false
		}
		explored(t, ordered, cfg, workers)
		if len(found) == 0 {
			t.Fatalf("%d workers: no failure in 3000 executions", workers)
		}
		for _, f := range found {
			r := f.Result
			replay := sched.Run(ordered, explore.Follow(r.Schedule()), sched.Options{})
			if replay.Hash != r.Hash || replay.Failure.Signature() != r.Failure.Signature() {
				t.Fatalf("%d workers: execution %d, kept as %#x (%s), replays as %#x (%s)",
					workers, f.Iteration, r.Hash, r.Failure.Summary(), replay.Hash, replay.Failure.Summary())
			}
		}
	}
}
