package sim_test

import (
	"sync"
	"testing"
	"time"

	"github.com/weftdev/weft/internal/simtest"
	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
)

// Virtual time: under control the clock starts at the epoch (simtest's,
// here), every event takes sched.Tick, and the clock jumps to the next
// deadline when every goroutine is blocked.

// at returns the virtual time d after the epoch.
func at(d time.Duration) time.Time { return simtest.Epoch.Add(d) }

func TestVirtualSleepHour(t *testing.T) {
	start := time.Now()
	var slept time.Duration
	var t0 time.Time
	r := runOnce(func() {
		t0 = sim.Now()
		sim.Sleep(time.Hour)
		slept = sim.Since(t0)
	})
	if real := time.Since(start); real > 500*time.Millisecond {
		t.Errorf("sleeping a virtual hour took %v of real time", real)
	}
	if r.Failure != nil {
		t.Fatal(r.Failure.Summary())
	}
	if t0.Before(simtest.Epoch) || t0.After(simtest.Epoch.Add(time.Microsecond)) {
		t.Errorf("start time %v, want the epoch %v", t0, simtest.Epoch)
	}
	if slept < time.Hour {
		t.Errorf("Since reports %v after sleeping an hour", slept)
	}
	if r.Elapsed < time.Hour || r.Elapsed > time.Hour+time.Microsecond {
		t.Errorf("Elapsed %v, want 1h", r.Elapsed)
	}
}

func TestVirtualElapsed(t *testing.T) {
	exploreAll(t, func(c *checker) {
		var wg sim.WaitGroup
		// Sleeps in parallel overlap; sleeps in sequence add up.
		wg.Go(func() { sim.Sleep(3 * time.Second) })
		wg.Go(func() {
			sim.Sleep(time.Second)
			sim.Sleep(4 * time.Second)
		})
		sim.Sleep(0) // no wait
		sim.Sleep(-time.Second)
		wg.Wait()
		c.Near("Now", sim.Now(), at(5*time.Second))
		if u := sim.Until(at(7 * time.Second)); u > 2*time.Second || u < 2*time.Second-time.Millisecond {
			c.Errorf("Until: got %v, want 2s or a little less", u)
		}
	})
	r := runOnce(func() {
		sim.Sleep(90 * time.Minute)
		sim.Sleep(30 * time.Second)
	})
	if want := 90*time.Minute + 30*time.Second; r.Failure != nil || r.Elapsed < want || r.Elapsed > want+time.Microsecond {
		t.Fatalf("failure %s, Elapsed %v", r.Failure.Summary(), r.Elapsed)
	}
}

func TestVirtualSleepersWakeInOrder(t *testing.T) {
	exploreAll(t, func(c *checker) {
		var mu sync.Mutex // the sleepers are not ordered with each other
		var order []string
		var wg sim.WaitGroup
		for _, s := range []struct {
			name string
			d    time.Duration
		}{{"c", 3 * time.Second}, {"a", time.Second}, {"b", 2 * time.Second}} {
			wg.Go(func() {
				sim.Sleep(s.d)
				if now := sim.Now(); now.Before(at(s.d)) || now.After(at(s.d+time.Millisecond)) {
					c.Errorf("%s woke at %v, want %v", s.name, now.Sub(simtest.Epoch), s.d)
				}
				mu.Lock()
				order = append(order, s.name)
				mu.Unlock()
			})
		}
		wg.Wait()
		c.Equal("wake order", order, []string{"a", "b", "c"})
	})
}

// race runs a worker that takes work of virtual time and returns the result
// of a select between its result and a timeout.
func race(c *checker, work, timeout time.Duration) string {
	result := sim.NewChan[string](1) // buffered: the worker never leaks
	sim.Go(func() {
		sim.Sleep(work)
		result.Send("done")
	})
	got := ""
	sim.Select(
		sim.OnRecv(result, func(v string) { got = v }),
		sim.OnRecv(sim.After(timeout), func(t time.Time) {
			got = "timeout"
			c.Near("time received from After", t, at(timeout))
		}),
	)
	return got
}

func TestVirtualAfterTimeout(t *testing.T) {
	exploreAll(t, func(c *checker) {
		c.Equal("work 2s, timeout 1s", race(c, 2*time.Second, time.Second), "timeout")
	})
	exploreAll(t, func(c *checker) {
		c.Equal("work 1s, timeout 2s", race(c, time.Second, 2*time.Second), "done")
	})
}

func TestVirtualTimerFires(t *testing.T) {
	exploreAll(t, func(c *checker) {
		tm := sim.NewTimer(time.Minute)
		c.Near("fired at", tm.C.Recv(), at(time.Minute))
		c.Equal("Stop after firing", tm.Stop(), false)
	})
}

func TestVirtualTimerStop(t *testing.T) {
	exploreAll(t, func(c *checker) {
		tm := sim.NewTimer(time.Second)
		c.Equal("Stop before firing", tm.Stop(), true)
		c.Equal("second Stop", tm.Stop(), false)
		sim.Sleep(2 * time.Second)
		c.Equal("Len after Stop", tm.C.Len(), 0)
		i := sim.Select(sim.OnRecv(tm.C, nil), sim.OnRecv(sim.After(time.Second), nil))
		c.Equal("select after Stop", i, 1)
	})
}

func TestVirtualTimerStopDiscardsFiredValue(t *testing.T) {
	// As with Go 1.23's timers, no stale value is received after Stop.
	exploreAll(t, func(c *checker) {
		tm := sim.NewTimer(time.Second)
		sim.Sleep(2 * time.Second) // fired, not received
		c.Equal("Len before Stop", tm.C.Len(), 1)
		c.Equal("Stop after firing", tm.Stop(), false)
		c.Equal("Len after Stop", tm.C.Len(), 0)
	})
}

func TestVirtualTimerReset(t *testing.T) {
	exploreAll(t, func(c *checker) {
		tm := sim.NewTimer(time.Second)
		c.Equal("Reset while pending", tm.Reset(3*time.Second), true)
		c.Near("fired at", tm.C.Recv(), at(3*time.Second))

		// Reset after firing: the stale value is discarded.
		tm = sim.NewTimer(time.Second)
		sim.Sleep(2 * time.Second) // now 5s; tm fired at 4s
		c.Equal("Reset after firing", tm.Reset(time.Second), false)
		c.Near("fired again at", tm.C.Recv(), at(6*time.Second))
	})
}

func TestVirtualTimerConcurrentReceiver(t *testing.T) {
	exploreAll(t, func(c *checker) {
		tm := sim.NewTimer(10 * time.Second)
		done := sim.NewChan[time.Time](0)
		sim.Go(func() { done.Send(tm.C.Recv()) })
		sim.Sleep(time.Second)
		c.Near("fired at", done.Recv(), at(10*time.Second))
	})
}

func TestVirtualAfterFunc(t *testing.T) {
	exploreAll(t, func(c *checker) {
		done := sim.NewChan[string](1)
		sim.AfterFunc(5*time.Second, func() {
			c.Near("ran at", sim.Now(), at(5*time.Second))
			done.Send(sched.Current().ID())
		})
		c.Equal("ran on", done.Recv(), "0.1")
		c.Near("now", sim.Now(), at(5*time.Second))
	})
}

func TestVirtualAfterFuncStop(t *testing.T) {
	exploreAll(t, func(c *checker) {
		ran := false
		tm := sim.AfterFunc(time.Second, func() { ran = true })
		sim.Sleep(500 * time.Millisecond)
		c.Equal("Stop before firing", tm.Stop(), true)
		sim.Sleep(time.Hour)
		c.Equal("f ran after Stop", ran, false)
		if tm.C != nil {
			c.Errorf("an AfterFunc timer has a channel")
		}
	})
}

func TestVirtualTicker(t *testing.T) {
	exploreAll(t, func(c *checker) {
		tk := sim.NewTicker(time.Second)
		for i := 1; i <= 4; i++ {
			c.Near("tick", tk.C.Recv(), at(time.Duration(i)*time.Second))
		}
		// A slow receiver misses ticks rather than queueing them.
		sim.Sleep(5500 * time.Millisecond) // now 9.5s: ticks at 5s..9s, one kept
		c.Near("kept tick", tk.C.Recv(), at(5*time.Second))
		c.Near("next tick", tk.C.Recv(), at(10*time.Second))
		tk.Reset(3 * time.Second)
		c.Near("tick after Reset", tk.C.Recv(), at(13*time.Second))
		tk.Stop()
		i := sim.Select(sim.OnRecv(tk.C, nil), sim.OnRecv(sim.After(time.Minute), nil))
		c.Equal("select after Stop", i, 1)
	})
}

func TestVirtualTick(t *testing.T) {
	exploreAll(t, func(c *checker) {
		tick := sim.Tick(time.Minute)
		tick.Recv()
		c.Near("second tick", tick.Recv(), at(2*time.Minute))
		if sim.Tick(0) != nil {
			c.Errorf("Tick(0) is not nil")
		}
	})
}

func TestVirtualTickerInSelectLoop(t *testing.T) {
	// A worker loop with a ticker and a quit channel, the usual pattern.
	exploreAll(t, func(c *checker) {
		quit := sim.NewChan[struct{}](0)
		ticks := 0
		var wg sim.WaitGroup
		wg.Go(func() {
			tk := sim.NewTicker(time.Second)
			defer tk.Stop()
			for {
				if sim.Select(sim.OnRecv(tk.C, func(time.Time) { ticks++ }), sim.OnRecv(quit, nil)) == 1 {
					return
				}
			}
		})
		sim.Sleep(3500 * time.Millisecond)
		quit.Close()
		wg.Wait()
		c.Equal("ticks", ticks, 3)
	})
}

func TestVirtualNonPositiveTicker(t *testing.T) {
	r := runOnce(func() { sim.NewTicker(0) })
	wantFailure(t, r, sched.Panic, "non-positive interval for NewTicker")
}

func TestVirtualTimerNeverSet(t *testing.T) {
	// A goroutine waits for a timer that was stopped: nothing will ever
	// advance the clock to wake it.
	r := runOnce(func() {
		tm := sim.NewTimer(time.Hour)
		tm.Stop()
		tm.C.Recv()
	})
	wantFailure(t, r, sched.Deadlock, "")
	if r.Elapsed > time.Microsecond {
		t.Errorf("Elapsed %v, want a few events' time", r.Elapsed)
	}
	if len(r.Failure.Waiting) != 1 || r.Failure.Waiting[0].Op != "Chan.Recv" {
		t.Errorf("waiting: %+v", r.Failure.Waiting)
	}
}

func TestVirtualTimeoutOnDeadlockedWorker(t *testing.T) {
	// A timeout rescues a wait that would otherwise deadlock.
	exploreAll(t, func(c *checker) {
		never := sim.NewChan[int](0)
		i := sim.Select(sim.OnRecv(never, nil), sim.OnRecv(sim.After(time.Second), nil))
		c.Equal("case", i, 1)
	})
}

func TestVirtualTimeDeterminism(t *testing.T) {
	body := func() {
		var wg sim.WaitGroup
		for i := range 3 {
			wg.Go(func() {
				sim.Sleep(time.Duration(sim.Intn(3)+i) * time.Millisecond)
				sim.AfterFunc(time.Millisecond, func() {})
			})
		}
		wg.Wait()
	}
	for _, s := range strategies {
		for seed := range uint64(10) {
			r1 := sched.Run(body, s.Make(seed), sched.Options{})
			r2 := sched.Run(body, s.Make(seed), sched.Options{})
			if r1.Hash != r2.Hash || r1.Elapsed != r2.Elapsed {
				t.Errorf("%s seed %d: hash %x/%x, elapsed %v/%v", s.Name, seed, r1.Hash, r2.Hash, r1.Elapsed, r2.Elapsed)
			}
		}
	}
}

// TestVirtualRereadsAreWork checks that a goroutine that reads one
// unchanged atomic several times in a row as it works (protobuf's lazyInit
// fast path, called for every field of a message, under groupcache's
// TestGetDupSuppressProto) is not taken for one that waits for time: a
// timeout pending elsewhere does not fire before its work is done.
func TestVirtualRereadsAreWork(t *testing.T) {
	exploreAll(t, func(c *checker) {
		var done sim.Uint32
		done.Store(1)
		var mu sim.Mutex
		result := sim.NewChan[string](1)
		sim.Go(func() {
			for range 20 {
				for range 6 {
					done.Load()
				}
				mu.Lock()
				mu.Unlock()
			}
			result.Send("done")
		})
		got := ""
		sim.Select(
			sim.OnRecv(result, func(v string) { got = v }),
			sim.OnRecv(sim.After(5*time.Second), func(time.Time) { got = "timeout" }),
		)
		c.Equal("a worker that rereads a word", got, "done")
	})
}

// TestVirtualTimersKeptAcrossExecutions: a timer or ticker made in one
// execution and kept for a later one (hashicorp/yamux keeps its write
// timers in a package-level sync.Pool) is set anew by Reset in the later
// one, and fires there. Before, it stayed the earlier execution's, inert:
// yamux's select on the timer's channel waited forever, and the later
// executions of its write-timeout tests deadlocked.
func TestVirtualTimersKeptAcrossExecutions(t *testing.T) {
	var pool struct {
		timer  *sim.Timer
		after  *sim.Timer
		ticker *sim.Ticker
	}
	var called sim.Var[int]
	for i := range 4 {
		r := runOnce(func() {
			if pool.timer == nil {
				pool.timer = sim.NewTimer(time.Hour)
				pool.timer.Stop()
				pool.after = sim.AfterFunc(time.Hour, func() { called.Store(called.Load() + 1) })
				pool.after.Stop()
				pool.ticker = sim.NewTicker(time.Hour)
				pool.ticker.Stop()
			}
			late := sim.After(2 * time.Second)
			pool.timer.Reset(time.Second)
			if sim.Select(sim.OnRecv(pool.timer.C, nil), sim.OnRecv(late, nil)) != 0 {
				panic("the kept timer did not fire")
			}
			pool.ticker.Reset(time.Second)
			if sim.Select(sim.OnRecv(pool.ticker.C, nil), sim.OnRecv(sim.After(2*time.Second), nil)) != 0 {
				panic("the kept ticker did not tick")
			}
			pool.ticker.Stop()
			pool.after.Reset(time.Second)
			sim.Sleep(2 * time.Second)
		})
		if r.Failure != nil {
			t.Fatalf("execution %d: %s", i+1, r.Failure.Summary())
		}
		if i%2 == 1 {
			r.Release() // the next execution runs on the same controller
		}
	}
	if n := called.Load(); n != 4 {
		t.Fatalf("the kept AfterFunc ran %d times in 4 executions", n)
	}
}

// TestVirtualLoadsAloneAreWork checks that goroutines whose only
// operations are loads of one unchanged word, with their work in plain
// memory between them (VictoriaMetrics/metrics' WritePrometheus reads its
// exposeMetadata flag for each metric it writes, in five goroutines), are
// not taken for loops that wait for time: a timeout pending elsewhere does
// not fire before their work is done. It fired after two rounds.
func TestVirtualLoadsAloneAreWork(t *testing.T) {
	exploreAll(t, func(c *checker) {
		var flag sim.Uint32
		results := sim.NewChan[int](3)
		for range 3 {
			sim.Go(func() {
				sum := 0
				for i := range 300 {
					if flag.Load() == 0 {
						sum += i
					}
				}
				results.Send(sum)
			})
		}
		got := 0
		for range 3 {
			sim.Select(
				sim.OnRecv(results, func(int) { got++ }),
				sim.OnRecv(sim.After(5*time.Second), func(time.Time) {}),
			)
		}
		c.Equal("results before the timeout", got, 3)
	})
}
