package explore_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/weftdev/weft/explore"
	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
)

// ordered fails when four goroutines write in one order of the 24, after
// a number of yields each that varies with the execution, so that PCT's
// estimate of decisions keeps growing for a while.
func ordered() {
	var order sim.Var[int]
	var wg sim.WaitGroup
	for g := 1; g <= 4; g++ {
		wg.Go(func() {
			for range sim.Intn(5) {
				sim.Yield()
			}
			order.Store(order.Load()*10 + g)
		})
	}
	wg.Wait()
	if order.Load() == 4321 {
		panic("the last goroutine wrote first")
	}
}

// executions records the hash of each execution a worker ran, by index:
// the last run of an index is the one that counts.
type executions struct {
	mu     sync.Mutex
	hashes map[int]uint64
}

func (e *executions) executed(i int, r *sched.Result) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.hashes[i] = r.Hash
}

// explored runs an exploration of body with the calling process and
// workers-1 in-process workers, and returns it with the hash of every
// execution.
func explored(t *testing.T, body func(), cfg explore.Config, workers int) (explore.Summary, map[int]uint64) {
	t.Helper()
	e := &executions{hashes: map[int]uint64{}}
	cfg.Workers = workers
	cfg.Executed = e.executed
	cfg.Spawn = func(bool) (explore.Worker, error) { return explore.InProcess(body, e.executed), nil }
	s, err := explore.Run(body, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s, e.hashes
}

func TestOutcomeDoesNotDependOnTheWorkers(t *testing.T) {
	t.Parallel()
	for _, strategy := range explore.Strategies {
		for seed := range uint64(4) {
			cfg := explore.Config{Strategy: strategy, Seed: seed, Iterations: 3000}
			one, hashes := explored(t, ordered, cfg, 1)
			if one.Finding == nil {
				t.Fatalf("%s seed %d: no failure in 3000 executions", strategy, seed)
			}
			for _, workers := range []int{2, 4} {
				s, hs := explored(t, ordered, cfg, workers)
				name := fmt.Sprintf("%s seed %d, %d workers", strategy, seed, workers)
				if s.Finding == nil || s.Finding.Iteration != one.Finding.Iteration || s.Finding.Result.Hash != one.Finding.Result.Hash ||
					s.Finding.Steps != one.Finding.Steps || s.Executions != one.Executions {
					t.Fatalf("%s: found %+v in %d executions; 1 worker: %+v in %d", name, s.Finding, s.Executions, one.Finding, one.Executions)
				}
				for i := range s.Executions {
					if hs[i] != hashes[i] {
						t.Fatalf("%s: execution %d has hash %#x, with 1 worker %#x", name, i, hs[i], hashes[i])
					}
				}
			}
		}
	}
}

func TestEveryExecutionRunsWhateverTheWorkers(t *testing.T) {
	t.Parallel()
	var failed bool
	body := transfer(&failed) // sets failed, never fails the execution
	cfg := explore.Config{Seed: 11, Iterations: 2000}
	one, hashes := explored(t, body, cfg, 1)
	for _, workers := range []int{1, 3} {
		s, hs := explored(t, body, cfg, workers)
		if s.Finding != nil || s.Executions != 2000 || len(hs) != 2000 {
			t.Fatalf("%d workers: %d executions, %d seen, finding %+v", workers, s.Executions, len(hs), s.Finding)
		}
		for i := range 2000 {
			if hs[i] != hashes[i] {
				t.Fatalf("%d workers: execution %d has hash %#x, with 1 worker %#x", workers, i, hs[i], hashes[i])
			}
		}
	}
	if one.Executions != 2000 {
		t.Fatalf("1 worker: %d executions", one.Executions)
	}
	// Fewer executions than the calling process runs before the workers.
	for _, n := range []int{1, 5, 9} {
		s, hs := explored(t, body, explore.Config{Seed: 11, Iterations: n}, 3)
		if s.Executions != n || len(hs) != n {
			t.Fatalf("%d executions asked: %d run, %d seen", n, s.Executions, len(hs))
		}
	}
}

func TestRejectedFailureDoesNotEndTheExploration(t *testing.T) {
	t.Parallel()
	for _, workers := range []int{1, 2} {
		var judged []int
		cfg := explore.Config{Strategy: explore.StrategyPCT, Seed: 5, Iterations: 3000, Accept: func(f *explore.Finding) bool {
			judged = append(judged, f.Iteration)
			return len(judged) == 3
		}}
		s, _ := explored(t, ordered, cfg, workers)
		if s.Finding == nil || len(s.Rejected) != 2 || len(judged) != 3 {
			t.Fatalf("%d workers: finding %+v, rejected %d, judged %v", workers, s.Finding, len(s.Rejected), judged)
		}
		if s.Rejected[0].Iteration != judged[0] || s.Rejected[1].Iteration != judged[1] || s.Finding.Iteration != judged[2] ||
			!(judged[0] < judged[1] && judged[1] < judged[2]) {
			t.Fatalf("%d workers: judged %v, rejected %d and %d, found %d", workers, judged, s.Rejected[0].Iteration, s.Rejected[1].Iteration, s.Finding.Iteration)
		}
		if s.Executions != s.Finding.Iteration+1 {
			t.Fatalf("%d workers: %d executions, found %d", workers, s.Executions, s.Finding.Iteration)
		}
	}
}

// crashing is a worker that dies on every chunk that holds execution bad,
// or only the first time if once is set.
type crashing struct {
	explore.Worker
	bad  int
	once *sync.Once
}

func (w crashing) Run(c explore.Chunk) (explore.ChunkResult, error) {
	if c.Start <= w.bad && w.bad < c.Start+c.Count {
		crash := w.once == nil
		if w.once != nil {
			w.once.Do(func() { crash = true })
		}
		if crash {
			return explore.ChunkResult{}, errors.New("boom")
		}
	}
	return w.Worker.Run(c)
}

func TestCrashingExecutionIsFound(t *testing.T) {
	t.Parallel()
	var failed bool
	body := transfer(&failed)
	cfg := explore.Config{Seed: 2, Iterations: 500, Workers: 2, Spawn: func(bool) (explore.Worker, error) {
		return crashing{Worker: explore.InProcess(body, nil), bad: 321}, nil
	}}
	s, err := explore.Run(body, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if s.Finding == nil || s.Finding.Iteration != 321 || s.Finding.Crash == nil || s.Finding.Crash.Why != "boom" || s.Executions != 322 {
		t.Fatalf("finding %+v in %d executions", s.Finding, s.Executions)
	}
	if s.Finding.Seed != explore.Seed(2, 321) {
		t.Errorf("seed %#x, want %#x", s.Finding.Seed, explore.Seed(2, 321))
	}
}

func TestWorkerThatDiesOnceLosesNothing(t *testing.T) {
	t.Parallel()
	var failed bool
	body := transfer(&failed)
	var once sync.Once
	cfg := explore.Config{Seed: 2, Iterations: 500, Workers: 2, Spawn: func(bool) (explore.Worker, error) {
		return crashing{Worker: explore.InProcess(body, nil), bad: 321, once: &once}, nil
	}}
	s, err := explore.Run(body, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if s.Finding != nil || s.Executions != 500 || len(s.Lost) != 1 || !strings.Contains(s.Lost[0], "boom") {
		t.Fatalf("finding %+v in %d executions, lost %q", s.Finding, s.Executions, s.Lost)
	}
}

func TestWorkersThatCannotStartLeaveTheWorkToTheCaller(t *testing.T) {
	t.Parallel()
	var failed bool
	cfg := explore.Config{Seed: 2, Iterations: 300, Workers: 2, Spawn: func(bool) (explore.Worker, error) {
		return nil, errors.New("no processes here")
	}}
	s, err := explore.Run(transfer(&failed), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if s.Executions != 300 || len(s.Lost) != 2 {
		t.Fatalf("%d executions, lost %q", s.Executions, s.Lost)
	}
}
