package explore_test

import (
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/weftdev/weft/explore"
	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
)

// twoBugs fails in two ways, each at a site of its own, by the values it
// draws; most executions pass.
func twoBugs() {
	switch sim.Intn(8) {
	case 1:
		panic("the first bug")
	case 2:
		panic("the second bug")
	}
}

// Shards of one base seed run disjoint executions that together are the
// whole exploration's, whatever the number of workers.
func TestShardsPartitionTheExecutions(t *testing.T) {
	t.Parallel()
	for _, strategy := range []string{explore.StrategyRandom, explore.StrategyMix} {
		cfg := explore.Config{Strategy: strategy, Seed: 7, Iterations: 300, Continue: true, Accept: func(*explore.Finding) bool { return false }}
		_, whole := explored(t, ordered, cfg, 1)
		union := map[uint64]int{}
		for shard := range 3 {
			c := cfg
			c.Shard, c.Shards, c.Iterations = shard, 3, 100
			s, part := explored(t, ordered, c, 1+shard)
			if s.Executions != 100 || len(part) != 100 {
				t.Fatalf("%s shard %d: %d executions", strategy, shard, s.Executions)
			}
			for i, h := range part {
				if strategy == explore.StrategyRandom && h != whole[i*3+shard] {
					t.Errorf("%s: execution %d of shard %d differs from execution %d of the whole", strategy, i, shard, i*3+shard)
				}
				union[h]++
			}
		}
		if strategy != explore.StrategyRandom {
			continue // PCT's estimate of decisions differs from shard to shard
		}
		wholeHashes := map[uint64]int{}
		for _, h := range whole {
			wholeHashes[h]++
		}
		if !maps.Equal(union, wholeHashes) {
			t.Errorf("the shards' executions are not the whole's")
		}
	}
}

// A continued exploration judges the first failure of each signature, runs
// its whole budget, and counts the rest.
func TestContinue(t *testing.T) {
	t.Parallel()
	for _, workers := range []int{1, 3} {
		var mu sync.Mutex
		var judged []string
		cfg := explore.Config{Strategy: explore.StrategyRandom, Seed: 3, Iterations: 400, Continue: true,
			Accept: func(f *explore.Finding) bool {
				mu.Lock()
				defer mu.Unlock()
				judged = append(judged, f.Result.Failure.Signature())
				return true // ends nothing
			}}
		s, hashes := explored(t, twoBugs, cfg, workers)
		if s.Executions != 400 || len(hashes) != 400 {
			t.Errorf("%d workers: %d executions of 400", workers, s.Executions)
		}
		if len(judged) != 2 || judged[0] == judged[1] {
			t.Fatalf("%d workers: judged %q, want the two bugs once each", workers, judged)
		}
		if s.Finding != nil || len(s.Rejected) != 0 {
			t.Errorf("%d workers: a continued exploration reports %+v and rejects %d", workers, s.Finding, len(s.Rejected))
		}
		// About a quarter of the executions fail: each of them but the
		// two judged is a repeat.
		if s.Repeats < 50 {
			t.Errorf("%d workers: %d repeats", workers, s.Repeats)
		}
	}
}

// A signature known beforehand is never judged.
func TestContinueKnown(t *testing.T) {
	t.Parallel()
	var first *explore.Finding
	explore.Run(twoBugs, explore.Config{Strategy: explore.StrategyRandom, Seed: 3, Iterations: 400,
		Accept: func(f *explore.Finding) bool { first = f; return true }})
	if first == nil {
		t.Fatal("no failure")
	}
	known := first.Result.Failure.Signature()
	var judged []string
	s, err := explore.Run(twoBugs, explore.Config{Strategy: explore.StrategyRandom, Seed: 3, Iterations: 400, Continue: true,
		Known: []string{known}, Accept: func(f *explore.Finding) bool {
			judged = append(judged, f.Result.Failure.Signature())
			return false
		}})
	if err != nil {
		t.Fatal(err)
	}
	if len(judged) != 1 || judged[0] == known {
		t.Errorf("judged %q with %q known", judged, known)
	}
	if s.Repeats == 0 {
		t.Error("no repeat counted")
	}
}

// Closing Stop ends the exploration at once, and the failures found before
// are judged.
func TestStop(t *testing.T) {
	t.Parallel()
	stop := make(chan struct{})
	var judged []int
	var once sync.Once
	cfg := explore.Config{Strategy: explore.StrategyRandom, Seed: 3, Duration: time.Hour, Continue: true, Stop: stop,
		Executed: func(i int, r *sched.Result) {
			if i == 50 {
				once.Do(func() { close(stop) })
			}
		},
		Accept: func(f *explore.Finding) bool {
			judged = append(judged, f.Iteration)
			return false
		}}
	s, err := explore.Run(twoBugs, cfg)
	if err != nil {
		t.Fatal(err)
	}
	// At once: an hour would run millions; the executions in flight when
	// Stop closes, on a loaded machine, a few thousand at most.
	if !s.Stopped || s.Executions < 51 || s.Executions > 100_000 {
		t.Fatalf("stopped %v after %d executions", s.Stopped, s.Executions)
	}
	if len(judged) != 2 || !slices.IsSorted(judged) {
		t.Errorf("judged executions %v, want the first failure of each bug", judged)
	}
}

// Closing a minimization's Stop ends it with what it has.
func TestMinimizeStop(t *testing.T) {
	t.Parallel()
	var found *explore.Finding
	explore.Run(ordered, explore.Config{Strategy: explore.StrategyRandom, Seed: 1, Iterations: 5000,
		Accept: func(f *explore.Finding) bool { found = f; return true }})
	if found == nil {
		t.Fatal("no failure")
	}
	stop := make(chan struct{})
	close(stop)
	m := explore.Minimize(ordered, found.Result, explore.MinimizeConfig{Stop: stop})
	if m.Runs > 1 || m.Result.Failure.Signature() != found.Result.Failure.Signature() {
		t.Errorf("a stopped minimization ran %d replays, and gives %s", m.Runs, m.Result.Failure.Summary())
	}
}
