package sched_test

import (
	"slices"
	"testing"
	"time"

	"github.com/weftdev/weft/explore"
	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
)

// timed runs n goroutines on timers of every kind: sleeps of one length
// (set in order of deadline) and of several, timers stopped and set again,
// selects on a channel or a timeout, a ticker reset while it ticks, an
// AfterFunc.
func timed(n int) func() {
	return func() {
		ch := sim.NewChan[int](0)
		tk := sim.NewTicker(300 * time.Microsecond)
		done := sim.NewChan[struct{}](0)
		sim.AfterFunc(4*time.Millisecond, func() { done.Close() })
		var wg sim.WaitGroup
		for i := range n {
			wg.Go(func() {
				sim.Sleep(time.Millisecond)
				sim.Sleep(time.Duration(i%7) * 200 * time.Microsecond)
				t := sim.NewTimer(time.Duration(i%5+1) * time.Millisecond)
				if i%3 == 0 {
					t.Stop()
					t.Reset(time.Duration(i%4) * time.Millisecond)
				}
				sim.Select(sim.OnSend(ch, i, nil), sim.OnRecv(t.C, func(time.Time) {}))
				if i%4 == 1 {
					tk.Reset(time.Duration(i%3+1) * 100 * time.Microsecond)
				}
			})
		}
		wg.Go(func() {
			for stop := false; !stop; {
				sim.Select(sim.OnRecv(ch, func(int) {}), sim.OnRecv(tk.C, func(time.Time) {}),
					sim.OnRecv(done, func(struct{}) { stop = true }))
			}
			tk.Stop()
		})
		wg.Wait()
	}
}

// The queue of timers set in order of deadline changes no decision: every
// strategy makes the same choices, and the execution the same events, with
// it as with every timer in the heap.
func TestTimerQueueChangesNoDecision(t *testing.T) {
	strategies := map[string]func(seed uint64) sched.Strategy{
		"random": func(seed uint64) sched.Strategy { return explore.RandomWalk(seed) },
		"pct":    func(seed uint64) sched.Strategy { return explore.PCT(seed, 3, 3000) },
	}
	for name, strat := range strategies {
		for seed := range uint64(8) {
			queued := sched.Run(timed(40), strat(seed), sched.Options{Verify: true})
			heaped := sched.Run(timed(40), strat(seed), sched.HeapTimers(sched.Options{Verify: true}))
			for _, r := range []*sched.Result{queued, heaped} {
				if r.Failure != nil {
					t.Fatalf("%s, seed %d: %s", name, seed, r.Failure.Summary())
				}
			}
			if queued.Hash != heaped.Hash || queued.Steps != heaped.Steps || queued.Elapsed != heaped.Elapsed || !slices.Equal(queued.Schedule(), heaped.Schedule()) {
				t.Fatalf("%s, seed %d: with the queue %d events (hash %x, %d choices, %v), with the heap alone %d (hash %x, %d choices, %v)",
					name, seed, queued.Steps, queued.Hash, len(queued.Schedule()), queued.Elapsed, heaped.Steps, heaped.Hash, len(heaped.Schedule()), heaped.Elapsed)
			}
		}
	}
}
