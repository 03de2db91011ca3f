package sched_test

import (
	"strings"
	"testing"
	"time"

	"github.com/weftdev/weft/explore"
	"github.com/weftdev/weft/internal/simtest"
	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
)

// The controller's model of a run, one test per trait, each reduced from a
// real program weft used to get wrong (../shared/repros names them).

// every runs body under both strategies over seeds executions each and
// fails at the first execution that fails or breaks an invariant.
func every(t *testing.T, seeds int, body func(c *simtest.Checker)) []*sched.Result {
	t.Helper()
	return simtest.ExploreAll(t, seeds, body)
}

// Repro frozen: time.Now moves between events.
func TestModelNowMovesBetweenEvents(t *testing.T) {
	every(t, 50, func(c *simtest.Checker) {
		var mu sim.Mutex
		mu.Lock()
		t1 := sim.Now()
		mu.Unlock()
		mu.Lock()
		t2 := sim.Now()
		mu.Unlock()
		if !t2.After(t1) {
			c.Errorf("time did not advance: %v then %v", t1, t2)
		}
		if d := t2.Sub(t1); d < 3*sched.Tick {
			c.Errorf("three events took %v, want at least %v", d, 3*sched.Tick)
		}
	})
}

// Repro initnow: by default an execution's clock starts at the wall
// clock's time, never before a time taken outside it; an epoch given in
// the options makes absolute times deterministic.
func TestModelEpoch(t *testing.T) {
	outside := time.Now()
	var inside time.Time
	r := sched.Run(func() { inside = sim.Now() }, explore.RandomWalk(1), sched.Options{})
	if r.Failure != nil {
		t.Fatal(r.Failure.Summary())
	}
	if inside.Before(outside) {
		t.Errorf("virtual time %v is before %v, taken before the execution", inside, outside)
	}
	if d := inside.Sub(outside); d < 0 || inside.Sub(outside) != inside.Round(0).Sub(outside.Round(0)) {
		t.Errorf("Since of an outside time is %v", d)
	}
	epoch := time.Date(2030, time.March, 1, 0, 0, 0, 0, time.UTC)
	var a, b time.Time
	for _, p := range []*time.Time{&a, &b} {
		sched.Run(func() {
			sim.Sleep(time.Second)
			*p = sim.Now()
		}, explore.RandomWalk(1), sched.Options{Epoch: epoch})
	}
	if !a.Equal(b) || a.Before(epoch.Add(time.Second)) || a.After(epoch.Add(time.Second+time.Microsecond)) {
		t.Errorf("two executions with epoch %v woke at %v and %v", epoch, a, b)
	}
}

// Repro sleepspin: a goroutine that spins with Yield while another sleeps
// lets the sleeper wake: the spinner counts as waiting.
func TestModelSpinWhileSleeping(t *testing.T) {
	for _, r := range every(t, 50, func(c *simtest.Checker) {
		var stop sim.Bool
		var wg sim.WaitGroup
		wg.Go(func() {
			for !stop.Load() {
				sim.Yield()
			}
		})
		sim.Sleep(time.Millisecond)
		stop.Store(true)
		wg.Wait()
	}) {
		if r.Steps > 200 {
			t.Fatalf("%d events: the spinner kept running while the sleeper could not wake", r.Steps)
		}
	}
}

// Repro pollafter: a select with a default, polled in a loop, lets a timer
// fire.
func TestModelPollUntilTimer(t *testing.T) {
	every(t, 50, func(c *simtest.Checker) {
		done := sim.NewChan[struct{}](0)
		sim.AfterFunc(10*time.Millisecond, func() { done.Close() })
		for sim.Select(sim.OnRecv(done, nil), sim.OnDefault(nil)) != 0 {
		}
	})
}

// Repros pollclose and poll: a polling goroutine does not keep the
// goroutine it waits for from running, under any strategy.
func TestModelPollUntilClosed(t *testing.T) {
	every(t, 100, func(c *simtest.Checker) {
		done := sim.NewChan[struct{}](0)
		var wg sim.WaitGroup
		wg.Go(func() {
			for sim.Select(sim.OnRecv(done, nil), sim.OnDefault(nil)) != 0 {
			}
		})
		done.Close()
		wg.Wait()
	})
}

// A CompareAndSwap loop and a TryLock loop poll too.
func TestModelFailedTryPolls(t *testing.T) {
	every(t, 50, func(c *simtest.Checker) {
		var flag sim.Int32
		var mu sim.Mutex
		mu.Lock()
		var wg sim.WaitGroup
		wg.Go(func() {
			for !flag.CompareAndSwap(1, 2) {
			}
			for !mu.TryLock() {
			}
			mu.Unlock()
		})
		sim.Sleep(time.Millisecond)
		flag.Store(1)
		sim.Sleep(time.Millisecond)
		mu.Unlock()
		wg.Wait()
	})
}

// Repro runaway: a loop whose select always has a ready case does not
// starve the sender of its stop signal: every exploring strategy is fair.
func TestModelFairLoop(t *testing.T) {
	every(t, 100, func(c *simtest.Checker) {
		stop := sim.NewChan[bool](0)
		var wg sim.WaitGroup
		wg.Go(func() {
			for {
				done := sim.NewChan[bool](1)
				sim.Go(func() { done.Send(true) })
				if sim.Select(sim.OnRecv(stop, nil), sim.OnRecv(done, nil)) == 0 {
					return
				}
			}
		})
		stop.Send(true)
		wg.Wait()
	})
}

// From x/sync's TestWeightedAcquireCanceled: a goroutine that loops on
// TryLock and Unlock until another one gets the lock does not starve it,
// although the waiter is enabled only between the loop's Unlock and its
// next TryLock: fairness is strong, as Go's mutex starvation mode makes it.
func TestModelFairLockWaiter(t *testing.T) {
	for seed := range uint64(20) { // PCT without change points: strict priorities
		r := sched.Run(lockWaiter, explore.PCT(seed, 1, 1), simtest.Options())
		if r.Failure != nil {
			t.Fatalf("seed %d: %s", seed, r.Failure.Summary())
		}
	}
	every(t, 20, func(*simtest.Checker) { lockWaiter() })
}

func lockWaiter() {
	var mu sim.Mutex
	var waiting sim.Bool
	var wg sim.WaitGroup
	wg.Go(func() {
		for !waiting.Load() {
			if mu.TryLock() {
				mu.Unlock()
			}
		}
	})
	mu.Lock()
	waiting.Store(true)
	mu.Unlock()
	wg.Wait()
}

// From x/sync's TestConcurrentRange: workers that never block until told
// to stop do not make the goroutine that stops them, with a thousand steps
// to go, exceed the budget: once a goroutine starved, PCT is fair.
func TestModelFairAfterStarving(t *testing.T) {
	every(t, 5, func(c *simtest.Checker) {
		stop := sim.NewChan[struct{}](0)
		var wg sim.WaitGroup
		var hits sim.Int64
		for range 2 {
			wg.Go(func() {
				for sim.Select(sim.OnRecv(stop, nil), sim.OnDefault(nil)) != 0 {
					hits.Add(1)
				}
			})
		}
		var mu sim.Mutex
		for range 1 << 10 {
			mu.Lock()
			mu.Unlock()
		}
		stop.Close()
		wg.Wait()
	})
}

// From jackc/puddle's stress tests: a loop that runs until a timer stops
// it (a second's AfterFunc) is no runaway, though a second is far more
// events than the budget at Tick each; a loop that no timer ends still is.
func TestModelStressUntilTimer(t *testing.T) {
	opts := sched.Options{MaxSteps: 1 << 14}
	r := sched.Run(func() {
		var mu sim.Mutex
		var stop sim.Bool
		sim.AfterFunc(time.Second, func() { stop.Store(true) })
		for !stop.Load() {
			mu.Lock()
			mu.Unlock()
		}
	}, explore.RandomWalk(1), opts)
	if r.Failure != nil {
		t.Fatalf("a loop a timer stops: %s", r.Failure.Summary())
	}
	r = sched.Run(func() {
		var mu sim.Mutex
		tk := sim.NewTicker(time.Millisecond)
		defer tk.Stop()
		for {
			mu.Lock()
			mu.Unlock()
		}
	}, explore.RandomWalk(1), opts)
	if r.Failure == nil || r.Failure.Kind != sched.Runaway {
		t.Fatalf("a loop no timer ends: %v, want a runaway", r.Failure)
	}
}

// From karlseguin/ccache's Test_ConcurrentStop: a body that sleeps in
// rounds while goroutines loop needs far more events at Tick each than the
// budgets allow (each 10 ms sleep half a million); past the budget the
// clock fires a pending timer every FairBound events, so the sleeps end
// and so does the test, the same way for the same seed and schedule.
func TestModelSleepsWhileOthersLoop(t *testing.T) {
	body := func() {
		for range 20 {
			var stop sim.Bool
			var wg sim.WaitGroup
			for range 3 {
				wg.Go(func() {
					var mu sim.Mutex
					for !stop.Load() {
						mu.Lock()
						mu.Unlock()
					}
				})
			}
			sim.Sleep(10 * time.Millisecond)
			stop.Store(true)
			wg.Wait()
		}
	}
	opts := sched.Options{MaxSteps: 1 << 14}
	r := sched.Run(body, explore.RandomWalk(1), opts)
	if r.Failure != nil || !r.Overran {
		t.Fatalf("failure %v, overran %v, want neither a failure nor the budget enough", r.Failure, r.Overran)
	}
	if again := sched.Run(body, explore.RandomWalk(1), opts); again.Hash != r.Hash {
		t.Errorf("same seed: hash %#x, then %#x", r.Hash, again.Hash)
	}
	followed := explore.Execute(body, explore.Follow(r.Schedule()), opts)
	if followed.Hash != r.Hash || followed.Failure != nil {
		t.Errorf("the schedule followed: hash %#x, want %#x (failure %v)", followed.Hash, r.Hash, followed.Failure)
	}
}

// Past the budget only a sleep ends early: a guard against a hang set
// there keeps its deadline while the work runs on, unexplored, to its end.
func TestModelGuardKeepsItsDeadlinePastTheBudget(t *testing.T) {
	work := func(n int) {
		var mu sim.Mutex
		for range n {
			mu.Lock()
			mu.Unlock()
		}
	}
	r := sched.Run(func() {
		work(2500) // past the budget, with no timer pending: no extension
		done := sim.NewChan[struct{}](0)
		sim.Go(func() {
			work(5000)
			done.Close()
		})
		if sim.Select(sim.OnRecv(done, nil), sim.OnRecv(sim.After(time.Second), nil)) == 1 {
			panic("the guard fired while the work could still run")
		}
	}, explore.RandomWalk(1), sched.Options{MaxSteps: 1 << 12})
	if r.Failure != nil || !r.Overran {
		t.Fatalf("failure %v, overran %v", r.Failure, r.Overran)
	}
}

// Repro longloop: an ordinary long test is no runaway.
func TestModelLongLoop(t *testing.T) {
	r := sched.Run(func() {
		var mu sim.Mutex
		n := 0
		for range 200_000 {
			mu.Lock()
			n++
			mu.Unlock()
		}
	}, explore.RandomWalk(1), sched.Options{})
	if r.Failure != nil {
		t.Fatal(r.Failure.Summary())
	}
}

// Repro bigcache: a stress test of millions of calls spends its budget of
// explored events and runs on, unexplored and fair, to its end: no runaway.
// Its decisions past the budget depend on the execution alone, so that the
// same seed, and its schedule followed, give the same execution.
func TestModelOverrunEnds(t *testing.T) {
	body := func() {
		var n sim.Int64
		var wg sim.WaitGroup
		for range 3 {
			wg.Go(func() {
				for range 2000 {
					n.Add(1)
					if n.Load()%7 == 0 {
						sim.Yield()
					}
				}
			})
		}
		wg.Wait()
	}
	opts := sched.Options{MaxSteps: 2000}
	r := sched.Run(body, explore.RandomWalk(3), opts)
	if r.Failure != nil || !r.Overran || r.Steps < 12000 {
		t.Fatalf("failure %v, overran %v, %d events", r.Failure, r.Overran, r.Steps)
	}
	hard := sched.Run(body, explore.RandomWalk(3), sched.Options{MaxSteps: 2000, Overruns: -1})
	if hard.Failure == nil || hard.Failure.Kind != sched.Runaway || hard.Overran {
		t.Fatalf("with no overrun: failure %v, overran %v, want a runaway", hard.Failure, hard.Overran)
	}
	if again := sched.Run(body, explore.RandomWalk(3), opts); again.Hash != r.Hash {
		t.Errorf("same seed: hash %#x, then %#x", r.Hash, again.Hash)
	}
	followed := explore.Execute(body, explore.Follow(r.Schedule()), opts)
	if followed.Hash != r.Hash || followed.Failure != nil {
		t.Errorf("the schedule followed: hash %#x, want %#x (failure %v)", followed.Hash, r.Hash, followed.Failure)
	}
}

// Repro otter's TestMap_UnlinksEmptyOverflowBucket: past the budget, four
// goroutines that loop until told to stop share the events with the one
// that does the work, as goroutines share Go's processors. Each starving
// goroutine forced by FairBound used to run one event, the looping one it
// interrupted then running on: the worker ran one event in FairBound, and
// a test of 0.4 s under go test was a runaway.
func TestModelOverrunSharesEvents(t *testing.T) {
	r := sched.Run(func() {
		var stop sim.Bool
		var n sim.Int64
		var wg sim.WaitGroup
		for range 4 {
			wg.Go(func() {
				for !stop.Load() {
					n.Add(1)
				}
			})
		}
		var work sim.Int64
		for range 2000 {
			work.Add(1)
		}
		stop.Store(true)
		wg.Wait()
	}, explore.RandomWalk(1), sched.Options{MaxSteps: 2000})
	if r.Failure != nil || !r.Overran {
		t.Fatalf("failure %s, overran %v, %d events", r.Failure.Summary(), r.Overran, r.Steps)
	}
}

// A livelock is a runaway, and the report says how many events ran and
// which flag sets the budget.
func TestModelRunaway(t *testing.T) {
	r := sched.Run(func() {
		var x sim.Int64
		sim.Go(func() {
			for {
				x.Add(1)
			}
		})
		for {
			x.Add(-1)
		}
	}, explore.RandomWalk(1), sched.Options{MaxSteps: 5000})
	if r.Failure == nil || r.Failure.Kind != sched.Runaway {
		t.Fatalf("failure %s, want a runaway", r.Failure.Summary())
	}
	if msg := r.Failure.Message; !strings.Contains(msg, "40000 events") || !strings.Contains(msg, "-explore.maxsteps") {
		t.Errorf("message %q", msg)
	}
	if len(r.Failure.Waiting) != 2 {
		t.Errorf("the report lists %d goroutines, want both: %+v", len(r.Failure.Waiting), r.Failure.Waiting)
	}
}

// Repro spinabort: once an execution is aborting, a goroutine that spins
// on a lock whose holder will never release it, in a deferred call, ends
// at its next operation instead of spinning forever.
func TestModelAbortEndsSpinningDefer(t *testing.T) {
	for seed := range uint64(20) {
		r := sched.Run(func() {
			var l sim.Uint32
			lock := func() {
				for !l.CompareAndSwap(0, 1) {
					sim.Yield()
				}
			}
			sim.Go(func() {
				lock()
				sim.Sleep(time.Millisecond)
				l.Store(0)
			})
			defer func() { lock(); l.Store(0) }()
			sim.Sleep(time.Microsecond)
			var n sim.Int64
			for range 40_000 { // past 8 MaxSteps: a runaway, and the abort
				n.Add(1)
			}
		}, explore.RandomWalk(seed), sched.Options{MaxSteps: 2000})
		if r.Failure == nil || r.Failure.Kind != sched.Runaway {
			t.Fatalf("seed %d: failure %s, want a runaway", seed, r.Failure.Summary())
		}
	}
}

// Repro tickleak: a goroutine still ranging over a ticker when the test
// returns kept running; it is no leak, unless asked for.
func TestModelKeptRunning(t *testing.T) {
	body := func() {
		sim.Go(func() {
			tk := sim.NewTicker(time.Millisecond)
			for range tk.C.All() {
			}
		})
		sim.Sleep(5 * time.Millisecond)
	}
	r := sched.Run(body, explore.RandomWalk(1), sched.Options{})
	if r.Failure != nil {
		t.Fatalf("failure %s, want none", r.Failure.Summary())
	}
	if len(r.KeptRunning) != 1 || r.KeptRunning[0].Goroutine != "0.1" || r.KeptRunning[0].Op != "Chan.Recv" {
		t.Errorf("kept running: %+v", r.KeptRunning)
	}
	r = sched.Run(body, explore.RandomWalk(1), sched.Options{StrictLeaks: true})
	if r.Failure == nil || r.Failure.Kind != sched.Leak || !r.Failure.Running {
		t.Fatalf("strict: failure %s, want a leak of a goroutine that kept running", r.Failure.Summary())
	}
	if !strings.Contains(r.Failure.Summary(), "kept running") {
		t.Errorf("summary %q", r.Failure.Summary())
	}
}

// Repro ctxloop: a goroutine looping on timers after the test body returns
// kept running; one that blocks for good after its last sleep is a leak,
// found at the operation where it blocks.
func TestModelLeakAfterReturn(t *testing.T) {
	r := sched.Run(func() {
		stop := sim.NewChan[struct{}](0)
		sim.Go(func() {
			for {
				t := sim.After(2 * time.Nanosecond)
				if sim.Select(sim.OnRecv(t, nil), sim.OnRecv(stop, nil)) == 1 {
					return
				}
			}
		})
	}, explore.RandomWalk(1), sched.Options{})
	if r.Failure != nil || len(r.KeptRunning) != 1 {
		t.Fatalf("a timer loop after the test: failure %s, kept running %+v", r.Failure.Summary(), r.KeptRunning)
	}
	r = sched.Run(func() {
		never := sim.NewChan[int](0)
		sim.Go(func() {
			sim.Sleep(time.Hour)
			never.Send(1)
		})
	}, explore.RandomWalk(1), sched.Options{})
	if r.Failure == nil || r.Failure.Kind != sched.Leak || r.Failure.Running {
		t.Fatalf("failure %s, want a leak", r.Failure.Summary())
	}
	if w := r.Failure.Waiting; len(w) != 1 || w[0].Op != "Chan.Send" {
		t.Errorf("waiting: %+v", w)
	}
}

// Goroutines that poll what nothing can change, with no timer pending,
// are a deadlock: they are listed as polling.
func TestModelPollersLivelock(t *testing.T) {
	r := sched.Run(func() {
		never := sim.NewChan[int](0)
		sim.Go(func() {
			for sim.Select(sim.OnRecv(never, nil), sim.OnDefault(nil)) != 0 {
			}
		})
		for sim.Select(sim.OnRecv(never, nil), sim.OnDefault(nil)) != 0 {
		}
	}, explore.RandomWalk(1), sched.Options{})
	if r.Failure == nil || r.Failure.Kind != sched.Deadlock {
		t.Fatalf("failure %s, want a deadlock", r.Failure.Summary())
	}
	for _, w := range r.Failure.Waiting {
		if !w.Polling || w.Op != "Select" {
			t.Errorf("waiting: %+v", w)
		}
	}
	if s := r.Failure.Summary(); !strings.Contains(s, "polling in Select") {
		t.Errorf("summary %q", s)
	}
}

// Repro otter's TestCache_LockHoldersScheduleRequiredDrain: a finite loop
// whose only operation is a load of a value that never changes (a warm-up
// of three million reads of a sketch, which checks an atomic flag at each,
// its work in plain memory) polls in vain for more than maxRounds rounds
// while nothing else can run. It was a deadlock; it is given a budget of
// events (MaxSteps) more, and ends. Its rounds do not move the clock, as
// it does not read it: they moved it twelve days on, and the test's
// require.Eventually then timed out past go test's -timeout.
func TestModelLongLoopOfLoads(t *testing.T) {
	var took time.Duration
	r := sched.Run(func() {
		var ready sim.Bool
		ready.Store(true)
		done := sim.NewChan[int](0)
		start := sim.Now()
		sim.Go(func() {
			n := 0
			for range 200_000 {
				if ready.Load() {
					n++
				}
			}
			done.Send(n)
		})
		if n := done.Recv(); n != 200_000 {
			panic("lost loads")
		}
		took = sim.Since(start)
	}, explore.RandomWalk(1), sched.Options{})
	if r.Failure != nil {
		t.Fatalf("failure %s, want none", r.Failure.Summary())
	}
	if took > time.Second {
		t.Errorf("200,000 loads took %v of virtual time", took)
	}
}

// From x/sync's TestTryGo: a finite loop of polls that expects nothing (a
// thousand TryGo calls on a full semaphore, each a select that takes its
// default) is no livelock.
func TestModelFiniteLoopOfPolls(t *testing.T) {
	every(t, 10, func(c *simtest.Checker) {
		full := sim.NewChan[struct{}](0)
		for range 1 << 10 {
			if sim.Select(sim.OnSend(full, struct{}{}, nil), sim.OnDefault(nil)) == 0 {
				c.Errorf("sent on a channel nobody receives from")
			}
		}
	})
}

// A goroutine that polls time (a loop on time.Since with Gosched, no
// timer) sees it pass.
func TestModelPollTime(t *testing.T) {
	every(t, 20, func(c *simtest.Checker) {
		start := sim.Now()
		for sim.Since(start) < time.Hour {
			sim.Yield()
		}
	})
}

// From go-co-op/gocron's TestScheduler_RunJobNow: a loop that polls a
// channel until a second has passed, while the only timer pending is due
// past the time limit (the scheduler's next run, an hour away): the stall
// rounds move the clock for a poller that reads it, so the loop ends, as
// under go test, instead of a timeout.
func TestModelPollTimeBeforeALateTimer(t *testing.T) {
	r := sched.Run(func() {
		ch := sim.NewChan[int](0)
		late := sim.NewTimer(time.Hour)
		defer late.Stop()
		deadline := sim.Now().Add(time.Second)
		for sim.Now().Before(deadline) {
			sim.Select(sim.OnRecv(ch, nil), sim.OnDefault(nil))
		}
	}, explore.RandomWalk(1), sched.Options{TimeLimit: 10 * time.Minute})
	if r.Failure != nil {
		t.Fatal(r.Failure.Summary())
	}
}

var opOutside = sched.NewOp("test.outside")

// A goroutine that polls something outside weft (G.Poll with outside) is
// given BlockTimeout of real time when nothing else can progress, then
// reported as Blocked.
func TestModelPollOutside(t *testing.T) {
	real := make(chan int, 1)
	go func() {
		time.Sleep(20 * time.Millisecond)
		real <- 1
	}()
	r := sched.Run(func() {
		for {
			select {
			case <-real:
				return
			default:
				sched.Current().Poll(opOutside, true)
			}
		}
	}, explore.RandomWalk(1), sched.Options{BlockTimeout: 10 * time.Second})
	if r.Failure != nil {
		t.Fatalf("a value that arrives from outside: failure %s", r.Failure.Summary())
	}
	r = sched.Run(func() {
		for {
			select {
			case <-real:
				return
			default:
				sched.Current().Poll(opOutside, true)
			}
		}
	}, explore.RandomWalk(1), sched.Options{BlockTimeout: 50 * time.Millisecond})
	if r.Failure == nil || r.Failure.Kind != sched.Blocked || r.Failure.Goroutine != "0" {
		t.Fatalf("failure %s, want blocked", r.Failure.Summary())
	}
}

// Repro manygo: thousands of goroutines that each sleep and call Done, in
// one execution, with the enabled set checked at every decision.
func TestModelManyGoroutines(t *testing.T) {
	r := sched.Run(func() {
		var wg sim.WaitGroup
		for i := range 2000 {
			wg.Go(func() { sim.Sleep(time.Duration(1+i%7) * time.Millisecond) })
		}
		wg.Wait()
	}, explore.RandomWalk(1), sched.Options{Verify: true})
	if r.Failure != nil {
		t.Fatal(r.Failure.Summary())
	}
	if r.Goroutines != 2001 {
		t.Errorf("%d goroutines", r.Goroutines)
	}
}

// A traced runaway keeps its last MaxTrace events, in order.
func TestModelTraceKeepsTheLastEvents(t *testing.T) {
	r := sched.Run(func() {
		var x sim.Int64
		for {
			x.Add(1)
		}
	}, explore.RandomWalk(1), sched.Options{MaxSteps: sched.MaxTrace/8 + 100, Trace: true}) // 8 budgets past MaxTrace
	if r.Failure == nil || r.Failure.Kind != sched.Runaway {
		t.Fatalf("failure %s", r.Failure.Summary())
	}
	if len(r.Trace) != sched.MaxTrace {
		t.Fatalf("%d events traced, want %d", len(r.Trace), sched.MaxTrace)
	}
	for i, e := range r.Trace[1:] {
		if e.N != r.Trace[i].N+1 {
			t.Fatalf("event %d is the goroutine's %d-th, after its %d-th", i+1, e.N, r.Trace[i].N)
		}
	}
	if last := r.Trace[len(r.Trace)-1]; last.N != (sched.OverrunBudgets+1)*(sched.MaxTrace/8+100)+1 { // the event past the budgets
		t.Errorf("the last event traced is the %d-th", last.N)
	}
}

// A traced runaway that leaves untraced all but the last MaxTrace events of
// its known length (Options.TraceFrom) keeps the same events, with the
// same sites, as one traced from the start.
func TestModelTraceFromKeepsTheSameLastEvents(t *testing.T) {
	body := func() {
		var x sim.Int64
		sim.Go(func() {
			for {
				x.Add(1)
			}
		})
		for x.Load() >= 0 {
		}
	}
	opts := sched.Options{MaxSteps: sched.MaxTrace/8 + 100}
	plain := sched.Run(body, explore.RandomWalk(1), opts)
	opts.Trace = true
	full := sched.Run(body, explore.RandomWalk(1), opts)
	opts.TraceFrom = plain.Steps - sched.MaxTrace
	late := sched.Run(body, explore.RandomWalk(1), opts)
	if full.Failure == nil || full.Failure.Kind != sched.Runaway || late.Hash != full.Hash || plain.Hash != full.Hash {
		t.Fatalf("failure %s, hashes %#x %#x %#x", full.Failure.Summary(), plain.Hash, full.Hash, late.Hash)
	}
	if len(late.Trace) != len(full.Trace) {
		t.Fatalf("%d events traced from %d, %d from the start", len(late.Trace), opts.TraceFrom, len(full.Trace))
	}
	for i, e := range late.Trace {
		if f := full.Trace[i]; e.G != f.G || e.N != f.N || e.Op != f.Op || e.Site != f.Site || e.Site == "" {
			t.Fatalf("event %d: %s %d %s at %s, traced from the start %s %d %s at %s", i, e.G, e.N, e.Op, e.Site, f.G, f.N, f.Op, f.Site)
		}
	}
}

// When the watchdog gives up on an execution (a goroutine blocked outside
// weft), the other goroutines end at their next operation, deferred calls
// included, rather than stay parked for good.
func TestModelAbandonedGoroutinesEnd(t *testing.T) {
	ended := make(chan struct{})
	never := make(chan int)
	r := sched.Run(func() {
		gate, started := sim.NewChan[int](0), sim.NewChan[int](0)
		sim.Go(func() {
			defer close(ended)
			defer func() {
				var mu sim.Mutex
				mu.Lock() // a weft operation in a deferred call: it ends the goroutine again
				mu.Unlock()
			}()
			started.Send(1)
			gate.Recv() // parked, as the execution is abandoned
		})
		started.Recv()
		<-never // blocked outside weft's knowledge
	}, explore.RandomWalk(1), sched.Options{BlockTimeout: 100 * time.Millisecond})
	if r.Failure == nil || r.Failure.Kind != sched.Blocked {
		t.Fatalf("failure %s, want blocked", r.Failure.Summary())
	}
	select {
	case <-ended:
	case <-time.After(time.Minute): // a guard against a hang, not a measure
		t.Fatal("the parked goroutine of the abandoned execution did not end")
	}
}
