package sched_test

import (
	"slices"
	"testing"

	"github.com/weftdev/weft/explore"
	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
)

// contend runs n goroutines on every primitive whose waiters form groups
// (a Mutex, an RWMutex's writers, a buffered channel's senders and
// receivers, a Once), and on those whose waiters hold tickets (a Cond, a
// WaitGroup, an RWMutex's readers).
func contend(n int) func() {
	return func() {
		var (
			mu    sim.Mutex
			rw    sim.RWMutex
			once  sim.Once
			wg    sim.WaitGroup
			cond  = sim.NewCond(&mu)
			ch    = sim.NewChan[int](2)
			total int // under mu
			wrote int // under rw
			ready int
		)
		for i := range n {
			wg.Go(func() {
				once.Do(func() { sim.Yield() })
				mu.Lock()
				total++
				ready++
				cond.Broadcast()
				mu.Unlock()
				if i%3 == 0 {
					rw.Lock()
					wrote++
					rw.Unlock()
				} else {
					rw.RLock()
					_ = wrote
					rw.RUnlock()
				}
				ch.Send(i)
				mu.Lock()
				for ready < n/2 {
					cond.Wait()
				}
				mu.Unlock()
				ch.Recv()
			})
		}
		wg.Wait()
		if total != n || wrote != (n+2)/3 {
			panic("lost an update")
		}
	}
}

// Groups of waiters change no decision: every strategy makes the same
// choices, and the execution the same events, with them as without, while
// the enabled set is checked against every goroutine's Waiter at every
// decision.
func TestGroupsChangeNoDecision(t *testing.T) {
	strategies := map[string]func(seed uint64) sched.Strategy{
		"random": func(seed uint64) sched.Strategy { return explore.RandomWalk(seed) },
		"pct":    func(seed uint64) sched.Strategy { return explore.PCT(seed, 3, 3000) },
	}
	for name, strat := range strategies {
		for seed := range uint64(8) {
			opts := sched.Options{Verify: true}
			grouped := sched.Run(contend(40), strat(seed), opts)
			plain := sched.Run(contend(40), strat(seed), sched.Ungrouped(opts))
			for _, r := range []*sched.Result{grouped, plain} {
				if r.Failure != nil {
					t.Fatalf("%s, seed %d: %s", name, seed, r.Failure.Summary())
				}
			}
			if grouped.Hash != plain.Hash || grouped.Steps != plain.Steps || !slices.Equal(grouped.Schedule(), plain.Schedule()) {
				t.Fatalf("%s, seed %d: with groups %d events (hash %x, %d choices), without %d (hash %x, %d choices)",
					name, seed, grouped.Steps, grouped.Hash, len(grouped.Schedule()), plain.Steps, plain.Hash, len(plain.Schedule()))
			}
		}
	}
}

// Ten thousand goroutines take one lock in turn, in one execution: each
// unlock costs the same whatever the number waiting (see
// BenchmarkMutexWaiters for the figure).
func TestGroupsTenThousandWaiters(t *testing.T) {
	const n = 10_000
	var mu sim.Mutex
	var wg sim.WaitGroup
	count := 0
	r := sched.Run(func() {
		for range n {
			wg.Go(func() {
				mu.Lock()
				count++
				sim.Yield()
				mu.Unlock()
			})
		}
		wg.Wait()
	}, explore.RandomWalk(1), sched.Options{})
	if r.Failure != nil {
		t.Fatal(r.Failure.Summary())
	}
	if count != n {
		t.Fatalf("count %d, want %d", count, n)
	}
}
