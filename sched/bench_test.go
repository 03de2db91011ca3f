package sched_test

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/weftdev/weft/explore"
	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
)

// The controller's costs, each against a raw unbuffered-channel handoff
// between two goroutines measured in the same run:
//
//	go test -run XXX -bench 'Controlled|Executions' -count 6 ./sched

// stay is the default policy: the running goroutine continues while it can.
type stay struct{}

func (stay) Spawned(*sched.G)                  {}
func (stay) Next(d *sched.Decision) *sched.G   { return d.Default }
func (stay) Choose(*sched.G, int) int          { return 0 }
func (swap) Spawned(*sched.G)                  {}
func (swap) Choose(*sched.G, int) int          { return 0 }
func (s swap) Next(d *sched.Decision) *sched.G { return other(d) }
func other(d *sched.Decision) *sched.G {
	for i := range d.Len() {
		if g := d.At(i); g != d.Current {
			return g
		}
	}
	return d.At(0)
}

// swap switches at every decision.
type swap struct{}

// handoff measures a raw handoff: one goroutine wakes the other over an
// unbuffered channel and waits to be woken back.
func handoff(n int) time.Duration {
	ping, pong := make(chan struct{}), make(chan struct{})
	go func() {
		for range ping {
			pong <- struct{}{}
		}
	}()
	start := time.Now()
	for range n / 2 {
		ping <- struct{}{}
		<-pong
	}
	close(ping)
	return time.Since(start)
}

// events runs b.N events of sim.Var.Store under the controller with
// strategy s, spread over goroutines, and returns the time they took. With
// the stay strategy and a second goroutine, only the root's events are
// timed: the second goroutine is enabled all along, so each is a decision.
func events(b *testing.B, s sched.Strategy, goroutines int) time.Duration {
	var elapsed time.Duration
	_, staying := s.(stay)
	r := sched.Run(func() {
		var v sim.Var[int]
		per := b.N / goroutines
		if staying {
			per = b.N
		}
		var wg sim.WaitGroup
		for range goroutines - 1 {
			wg.Go(func() {
				for i := range per {
					v.Store(i)
				}
			})
		}
		start := time.Now()
		for i := range per {
			v.Store(i)
		}
		if staying {
			elapsed = time.Since(start)
		}
		wg.Wait()
		if !staying {
			elapsed = time.Since(start)
		}
	}, s, sched.Options{MaxSteps: 1 << 62})
	if r.Failure != nil {
		b.Fatal(r.Failure.Summary())
	}
	return elapsed
}

func BenchmarkControlled(b *testing.B) {
	b.Run("handoff", func(b *testing.B) {
		handoff(b.N)
	})
	// An event of the only goroutine: no decision at all.
	b.Run("event-alone", func(b *testing.B) {
		d := events(b, stay{}, 1)
		h := handoff(b.N)
		b.ReportMetric(float64(d)/float64(h), "handoffs/event")
	})
	// An event where two goroutines could run and the strategy keeps the
	// running one: a decision without a switch.
	b.Run("event-decision", func(b *testing.B) {
		d := events(b, stay{}, 2)
		h := handoff(b.N)
		b.ReportMetric(float64(d)/float64(h), "handoffs/event")
	})
	// Every event switches to the other goroutine.
	b.Run("switch", func(b *testing.B) {
		d := events(b, swap{}, 2)
		h := handoff(b.N)
		b.ReportMetric(float64(d)/float64(h), "handoffs/switch")
	})
}

// BenchmarkExecutions measures whole executions under the default
// strategy, goroutines × events each, as explored by weft.Check: in one
// sequence (RunSequence), each Result released for the next execution.
// BenchmarkExecutionsRun measures the same executions, each through Run.
func BenchmarkExecutions(b *testing.B) {
	executions(b, func(body func(), n int) {
		i := 0
		// As weft.Check does, the clock starts at one time for all.
		opts := sched.Options{Epoch: time.Now()}
		sched.RunSequence(func() (func(), sched.Strategy, sched.Options, bool) {
			return body, explore.PCT(uint64(i), 3, 100), opts, i < n
		}, func(r *sched.Result) bool {
			r.Release()
			i++
			return true
		})
	})
}

func BenchmarkExecutionsRun(b *testing.B) {
	executions(b, func(body func(), n int) {
		opts := sched.Options{Epoch: time.Now()}
		for i := range n {
			// As an exploration did: the Result of a passing execution
			// goes back for the next one.
			sched.Run(body, explore.PCT(uint64(i), 3, 100), opts).Release()
		}
	})
}

// executions runs b.N executions of 2 goroutines × 10 events, then of
// 8 × 100, with run.
func executions(b *testing.B, run func(body func(), n int)) {
	for _, size := range []struct{ goroutines, events int }{{2, 10}, {8, 100}} {
		name := map[int]string{2: "2x10", 8: "8x100"}[size.goroutines]
		b.Run(name, func(b *testing.B) {
			body := func() {
				var v sim.Var[int]
				var wg sim.WaitGroup
				for range size.goroutines {
					wg.Go(func() {
						for i := range size.events {
							v.Store(i)
						}
					})
				}
				wg.Wait()
			}
			b.ResetTimer()
			run(body, b.N)
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "execs/s")
		})
	}
}

// BenchmarkEventLive measures an event while n other goroutines are live,
// parked on a channel: with the enabled goroutines and the waiters kept
// incrementally, it costs the same with ten or a hundred thousand. In
// "decision", a second goroutine can run all along and the default policy
// keeps the running one, so that every event is a decision without a
// switch; in "switch", two goroutines take turns at random, and every
// other event is a switch, recorded in the schedule.
//
//	go test -run XXX -bench EventLive -count 6 ./sched
func BenchmarkEventLive(b *testing.B) {
	for _, kind := range []string{"decision", "switch"} {
		for _, n := range []int{10, 100_000} {
			b.Run(fmt.Sprintf("kind=%s/live=%d", kind, n), func(b *testing.B) {
				var s sched.Strategy = stay{}
				if kind == "switch" {
					s = explore.RandomWalk(1)
				}
				eventsAmongParked(b, n, s, kind == "switch")
			})
		}
	}
}

// eventsAmongParked times b.N events of two goroutines, the second taking
// half of them if it runs, while n goroutines are parked on a channel.
func eventsAmongParked(b *testing.B, n int, s sched.Strategy, both bool) {
	b.StopTimer() // starting and parking the goroutines is not timed
	r := sched.Run(func() {
		stop := sim.NewChan[struct{}](0)
		var parked sim.WaitGroup
		for range n {
			parked.Go(func() { stop.Recv() })
		}
		sim.Sleep(time.Millisecond) // every child runs and parks
		var v sim.Var[int]
		var wg sim.WaitGroup
		mine := b.N
		if both {
			mine = b.N - b.N/2
		}
		b.StartTimer()
		wg.Go(func() {
			for i := range b.N - mine {
				v.Store(i)
			}
		})
		for i := range mine {
			v.Store(i)
		}
		b.StopTimer()
		wg.Wait()
		stop.Close()
		parked.Wait()
	}, s, sched.Options{MaxSteps: 1 << 62, BlockTimeout: time.Minute})
	if r.Failure != nil {
		b.Fatal(r.Failure.Summary())
	}
}

// BenchmarkManyGoroutines runs n goroutines that each sleep and call Done,
// in one controlled execution, against the same code with the standard
// library's WaitGroup and time.Sleep (what go test runs), measured in the
// same run.
//
//	go test -run XXX -bench ManyGoroutines -benchtime 5x -count 6 ./sched
func BenchmarkManyGoroutines(b *testing.B) {
	for _, n := range []int{1000, 8000, 100_000} {
		b.Run(fmt.Sprintf("n=%d/impl=weft", n), func(b *testing.B) {
			for range b.N {
				r := sched.Run(func() {
					var wg sim.WaitGroup
					for range n {
						wg.Go(func() { sim.Sleep(time.Millisecond) })
					}
					wg.Wait()
				}, stay{}, sched.Options{BlockTimeout: time.Minute})
				if r.Failure != nil {
					b.Fatal(r.Failure.Summary())
				}
			}
		})
		b.Run(fmt.Sprintf("n=%d/impl=go", n), func(b *testing.B) {
			for range b.N {
				var wg sync.WaitGroup
				for range n {
					wg.Go(func() { time.Sleep(time.Millisecond) })
				}
				wg.Wait()
			}
		})
	}
}

// BenchmarkLongExecution runs executions of a million events, two
// goroutines storing to a shared variable, under PCT (few switches) and a
// random walk (a switch every other event, each recorded in the
// schedule), and reports the heap the execution holds at its end
// (liveMB: what it grew to, as nothing it records is dropped before the
// end) and the bytes it allocated per event.
//
//	go test -run XXX -bench LongExecution -benchtime 3x -count 6 ./sched
func BenchmarkLongExecution(b *testing.B) {
	const events = 1_000_000
	for _, strat := range []string{"pct", "random"} {
		b.Run("strategy="+strat, func(b *testing.B) {
			var live, held uint64
			choices := 0
			b.ReportAllocs()
			for i := range b.N {
				s := explore.PCT(uint64(i), 3, events)
				if strat == "random" {
					s = explore.RandomWalk(uint64(i))
				}
				before := liveHeap()
				r := sched.Run(func() {
					var v sim.Var[int]
					var wg sim.WaitGroup
					wg.Go(func() {
						for j := range events / 2 {
							v.Store(j)
						}
					})
					for j := range events / 2 {
						v.Store(j)
					}
					wg.Wait()
					live = max(live, liveHeap()-min(before, liveHeap()))
				}, s, sched.Options{MaxSteps: 4 * events})
				if r.Failure != nil {
					b.Fatal(r.Failure.Summary())
				}
				// What the Result holds, its schedule not asked for.
				held = max(held, liveHeap()-min(before, liveHeap()))
				b.StopTimer() // B/op without the Schedule, which nobody asks for
				choices = max(choices, len(r.Schedule()))
				b.StartTimer()
			}
			b.ReportMetric(float64(live)/(1<<20), "liveMB")
			b.ReportMetric(float64(held)/(1<<20), "resultMB")
			b.ReportMetric(float64(choices), "choices")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*events), "ns/event")
		})
	}
}

// liveHeap returns the bytes of the heap's live objects, after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkMutexWaiters measures an event while n goroutines wait to lock
// the mutex the running goroutine locks and unlocks: every event enables
// or disables them all, which costs the same whatever their number, as
// they form one group (see group.go). In "held", the running goroutine
// keeps the lock to itself (the default policy); in "turns", the n
// goroutines each take the lock once, at random, and the figure is per
// event of the whole execution.
//
//	go test -run XXX -bench MutexWaiters -count 6 ./sched
func BenchmarkMutexWaiters(b *testing.B) {
	for _, n := range []int{10, 1000, 10_000} {
		b.Run(fmt.Sprintf("kind=held/waiters=%d", n), func(b *testing.B) {
			b.StopTimer()
			r := sched.Run(func() {
				var mu sim.Mutex
				var wg sim.WaitGroup
				mu.Lock()
				for range n {
					wg.Go(func() {
						mu.Lock()
						mu.Unlock()
					})
				}
				sim.Sleep(time.Millisecond) // every child runs and waits
				b.StartTimer()
				for range b.N / 2 {
					mu.Unlock()
					mu.Lock()
				}
				b.StopTimer()
				mu.Unlock()
				wg.Wait()
			}, stay{}, sched.Options{MaxSteps: 1 << 62, BlockTimeout: time.Minute})
			if r.Failure != nil {
				b.Fatal(r.Failure.Summary())
			}
		})
	}
	for _, n := range []int{10, 1000, 10_000} {
		b.Run(fmt.Sprintf("kind=turns/waiters=%d", n), func(b *testing.B) {
			steps := 0
			for i := range b.N {
				r := sched.Run(func() {
					var mu sim.Mutex
					var wg sim.WaitGroup
					for range n {
						wg.Go(func() {
							mu.Lock()
							sim.Yield()
							mu.Unlock()
						})
					}
					wg.Wait()
				}, explore.RandomWalk(uint64(i)), sched.Options{BlockTimeout: time.Minute})
				if r.Failure != nil {
					b.Fatal(r.Failure.Summary())
				}
				steps += r.Steps
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(steps), "ns/event")
		})
	}
}
