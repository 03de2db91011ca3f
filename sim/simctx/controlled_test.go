package simctx_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/weftdev/weft/explore"
	"github.com/weftdev/weft/internal/simtest"
	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
	"github.com/weftdev/weft/sim/simctx"
)

// Controlled mode: bodies run under sched.Run over many seeds with both
// strategies. Cancellations are events, deadlines run on virtual time.

const seeds = 100

// strategies, checker and exploreAll are simtest's.
var strategies = simtest.Strategies

type checker = simtest.Checker

// exploreAll runs body over seeds seeds under every strategy, and fails at
// the first execution that reports a failure or breaks an invariant.
func exploreAll(t *testing.T, body func(c *checker)) []*sched.Result {
	t.Helper()
	return simtest.ExploreAll(t, seeds, body)
}

func at(d time.Duration) time.Time { return simtest.Epoch.Add(d) }

func TestControlledTimeoutVirtual(t *testing.T) {
	start := time.Now()
	rs := exploreAll(t, func(c *checker) {
		t0 := sim.Now()
		ctx, cancel := simctx.WithTimeout(simctx.Background(), time.Hour)
		defer cancel()
		c.Near("deadline", mustDeadline(ctx), at(time.Hour))
		c.Equal("Err before", ctx.Err(), nil)
		ctx.Done().Recv()
		if el := sim.Since(t0); el < time.Hour {
			c.Errorf("canceled after %v of virtual time", el)
		}
		c.Near("now", sim.Now(), at(time.Hour))
		c.Equal("Err", ctx.Err(), context.DeadlineExceeded)
		c.Equal("Cause", simctx.Cause(ctx), context.DeadlineExceeded)
	})
	for _, r := range rs {
		if r.Elapsed < time.Hour || r.Elapsed > time.Hour+time.Millisecond {
			t.Fatalf("Elapsed %v", r.Elapsed)
		}
	}
	// Virtual hours do not wait in real time (a minute allows any load).
	if real := time.Since(start); real > time.Minute {
		t.Errorf("%d virtual hours took %v", len(rs), real)
	}
}

func TestControlledDeadlineWakesWaiters(t *testing.T) {
	// Goroutines waiting on a deadline's Done are woken when every
	// goroutine is blocked, children and AfterFuncs included, in virtual
	// time; cancel after the deadline changes nothing.
	exploreAll(t, func(c *checker) {
		cause := errors.New("too slow")
		ctx, cancel := simctx.WithTimeoutCause(simctx.Background(), 10*time.Second, cause)
		child, cancelChild := simctx.WithTimeout(ctx, time.Hour) // the parent's deadline wins
		defer cancelChild()
		c.Near("child deadline", mustDeadline(child), at(10*time.Second))
		var wg sim.WaitGroup
		woken := sim.NewChan[time.Time](3)
		for _, x := range []simctx.Context{ctx, child} {
			wg.Go(func() {
				x.Done().Recv()
				woken.Send(sim.Now())
			})
		}
		simctx.AfterFunc(child, func() { woken.Send(sim.Now()) })
		wg.Wait()
		for range 3 {
			c.Near("woken at", woken.Recv(), at(10*time.Second))
		}
		c.Equal("child Cause", simctx.Cause(child), cause)
		cancel()
		c.Equal("Err after cancel", ctx.Err(), context.DeadlineExceeded)
	})
}

func TestControlledCancelStopsTimer(t *testing.T) {
	exploreAll(t, func(c *checker) {
		ctx, cancel := simctx.WithTimeout(simctx.Background(), time.Minute)
		sim.Go(func() {
			sim.Sleep(time.Second)
			cancel()
		})
		ctx.Done().Recv()
		c.Near("canceled at", sim.Now(), at(time.Second))
		sim.Sleep(time.Hour)
		c.Equal("Err", ctx.Err(), context.Canceled)
	})
}

func TestControlledDeadlinePassed(t *testing.T) {
	exploreAll(t, func(c *checker) {
		sim.Sleep(time.Minute)
		ctx, cancel := simctx.WithDeadline(simctx.Background(), at(time.Second))
		defer cancel()
		c.Equal("Err", ctx.Err(), context.DeadlineExceeded)
		c.Equal("closed", closed(ctx.Done()), true)
		c.Near("now", sim.Now(), at(time.Minute))
	})
}

func TestControlledWorkerSeesCancelOrResult(t *testing.T) {
	// A worker selects on ctx.Done() and a result channel; the result and
	// the cancellation come from two goroutines: which one the worker sees
	// depends on the schedule alone.
	outcomes := map[string]int{}
	for _, s := range strategies {
		for seed := range uint64(seeds) {
			got := ""
			r := sched.Run(func() {
				ctx, cancel := simctx.WithCancel(simctx.Background())
				results := sim.NewChan[int](1)
				sim.Go(cancel)
				sim.Go(func() { results.Send(42) })
				sim.Select(
					sim.OnRecv(ctx.Done(), func(struct{}) {
						if ctx.Err() != context.Canceled {
							got = fmt.Sprint("Done closed, Err ", ctx.Err())
							return
						}
						got = "canceled"
					}),
					sim.OnRecv(results, func(v int) { got = fmt.Sprint("result ", v) }),
				)
			}, s.Make(seed), sched.Options{})
			if r.Failure != nil {
				t.Fatalf("%s seed %d: %s", s.Name, seed, r.Failure.Summary())
			}
			outcomes[got]++
		}
	}
	if len(outcomes) != 2 || outcomes["canceled"] == 0 || outcomes["result 42"] == 0 {
		t.Errorf("outcomes over %d executions: %v, want both canceled and result 42", 2*seeds, outcomes)
	}
}

func TestControlledLeak(t *testing.T) {
	for name, body := range map[string]func(){
		"WithCancel never canceled": func() {
			ctx, _ := simctx.WithCancel(simctx.Background())
			sim.Go(func() { ctx.Done().Recv() })
		},
		"Background": func() {
			sim.Go(func() { simctx.Background().Done().Recv() })
		},
		"select on a child never canceled": func() {
			parent, cancel := simctx.WithCancel(simctx.Background())
			ctx, _ := simctx.WithCancel(parent)
			other := sim.NewChan[int](0)
			sim.Go(func() { sim.Select(sim.OnRecv(ctx.Done(), nil), sim.OnRecv(other, nil)) })
			_ = cancel
		},
	} {
		for seed := range uint64(20) {
			r := sched.Run(body, explore.RandomWalk(seed), sched.Options{})
			if r.Failure == nil || r.Failure.Kind != sched.Leak {
				t.Fatalf("%s, seed %d: failure %v, want a leak", name, seed, r.Failure.Summary())
			}
			if len(r.Failure.Waiting) != 1 {
				t.Fatalf("%s: waiting %v", name, r.Failure.Waiting)
			}
		}
	}

	// A context with a deadline is canceled when the clock gets there: no
	// leak.
	r := sched.Run(func() {
		ctx, _ := simctx.WithTimeout(simctx.Background(), time.Hour)
		sim.Go(func() { ctx.Done().Recv() })
	}, explore.RandomWalk(1), sched.Options{})
	if r.Failure != nil || r.Elapsed < time.Hour || r.Elapsed > time.Hour+time.Millisecond {
		t.Fatalf("a waiter on a deadline: failure %s, Elapsed %v", r.Failure.Summary(), r.Elapsed)
	}
}

func TestControlledDeadlockOnDone(t *testing.T) {
	r := sched.Run(func() {
		ctx, cancel := simctx.WithCancel(simctx.Background())
		defer cancel()
		ctx.Done().Recv() // nobody else can cancel it
	}, explore.RandomWalk(1), sched.Options{})
	if r.Failure == nil || r.Failure.Kind != sched.Deadlock {
		t.Fatalf("failure %v, want a deadlock", r.Failure.Summary())
	}
}

func TestControlledCancelWhileCheckingErr(t *testing.T) {
	// One goroutine cancels while others check Err, Done and Cause: Err is
	// never non-nil with Done open, Done never closed with Err nil.
	exploreAll(t, func(c *checker) {
		boom := errors.New("boom")
		parent, cancelParent := simctx.WithCancelCause(simctx.Background())
		ctx, cancel := simctx.WithCancel(simctx.WithValue(parent, "k", 1))
		var wg sim.WaitGroup
		wg.Go(func() { cancelParent(boom) })
		wg.Go(cancel)
		for range 2 {
			wg.Go(func() {
				for {
					err := ctx.Err()
					isClosed := closed(ctx.Done())
					if err != nil {
						if !isClosed {
							c.Errorf("Err %v, Done open", err)
						}
						if cause := simctx.Cause(ctx); cause != boom && cause != context.Canceled {
							c.Errorf("Cause %v", cause)
						}
						return
					}
					if isClosed && ctx.Err() == nil {
						c.Errorf("Done closed, Err nil")
					}
					sim.Yield()
				}
			})
		}
		wg.Wait()
		c.Equal("parent Err", parent.Err(), context.Canceled)
		c.Equal("parent Cause", simctx.Cause(parent), boom)
		c.Equal("ctx Err", ctx.Err(), context.Canceled)
		if n := simctx.NumChildren(parent); n > 0 {
			c.Errorf("the parent keeps %d children", n)
		}
	})
}

func TestControlledCancelOrder(t *testing.T) {
	// Canceling a parent and a child concurrently: the child's cause is
	// whichever came first, and both end canceled.
	causes := map[string]int{}
	exploreAll(t, func(c *checker) {
		p, cancelP := simctx.WithCancelCause(simctx.Background())
		ch, cancelCh := simctx.WithCancelCause(p)
		var wg sim.WaitGroup
		wg.Go(func() { cancelP(errors.New("parent")) })
		wg.Go(func() { cancelCh(errors.New("child")) })
		wg.Wait()
		c.Equal("parent Cause", simctx.Cause(p).Error(), "parent")
		causes[simctx.Cause(ch).Error()]++
	})
	if causes["parent"] == 0 || causes["child"] == 0 {
		t.Errorf("child causes %v, want both", causes)
	}
}

func TestControlledAfterFunc(t *testing.T) {
	// stop and cancel race: exactly one wins, and f runs on its own
	// goroutine iff stop lost.
	outcomes := map[bool]int{}
	exploreAll(t, func(c *checker) {
		ctx, cancel := simctx.WithCancel(simctx.Background())
		ran := sim.NewChan[string](1)
		stop := simctx.AfterFunc(ctx, func() { ran.Send(sched.Current().ID()) })
		stopped := sim.NewChan[bool](1)
		sim.Go(cancel)
		sim.Go(func() { stopped.Send(stop()) })
		s := stopped.Recv()
		outcomes[s]++
		if s {
			sim.Sleep(time.Second) // f would have run by now
			c.Equal("f ran", ran.Len(), 0)
		} else if id := ran.Recv(); id == "0" {
			c.Errorf("f ran on the body's goroutine")
		}
	})
	if outcomes[true] == 0 || outcomes[false] == 0 {
		t.Errorf("stop outcomes %v, want both", outcomes)
	}
}

func TestControlledSameSeedSameHash(t *testing.T) {
	body := func() {
		root, cancelRoot := simctx.WithCancel(simctx.Background())
		var wg sim.WaitGroup
		for i := range 6 {
			wg.Go(func() {
				ctx, cancel := simctx.WithTimeout(root, time.Duration(i+1)*time.Second)
				defer cancel()
				for j := range 4 { // many children, canceled in a replayable order
					simctx.AfterFunc(ctx, func() { sim.Sleep(time.Duration(j) * time.Millisecond) })
					child, cc := simctx.WithCancel(ctx)
					defer cc()
					sim.Go(func() { child.Done().Recv() })
				}
				sim.Select(sim.OnRecv(ctx.Done(), nil), sim.OnRecv(sim.After(3*time.Second), nil))
			})
		}
		sim.Sleep(2 * time.Second)
		cancelRoot()
		wg.Wait()
	}
	hashes := map[uint64]bool{}
	for seed := range uint64(20) {
		var h uint64
		for rep := range 3 {
			r := sched.Run(body, explore.RandomWalk(seed), sched.Options{})
			if r.Failure != nil {
				t.Fatalf("seed %d: %s", seed, r.Failure.Summary())
			}
			if rep == 0 {
				h = r.Hash
			} else if r.Hash != h {
				t.Fatalf("seed %d: hash %#x, then %#x", seed, h, r.Hash)
			}
		}
		hashes[h] = true
	}
	if len(hashes) < 2 {
		t.Errorf("20 seeds gave %d executions", len(hashes))
	}
}

func TestControlledValueAndWithoutCancel(t *testing.T) {
	exploreAll(t, func(c *checker) {
		parent, cancel := simctx.WithTimeout(simctx.WithValue(simctx.Background(), key1{}, "v"), time.Minute)
		wc := simctx.WithoutCancel(parent)
		sim.Go(cancel)
		parent.Done().Recv()
		c.Equal("value", wc.Value(key1{}), "v")
		c.Equal("Err", wc.Err(), nil)
		c.Equal("Cause", simctx.Cause(wc), nil)
	})
}

func TestControlledCustomParent(t *testing.T) {
	// A custom parent is watched by a controlled goroutine, which ends
	// when either context is done.
	exploreAll(t, func(c *checker) {
		p := newCustom()
		child, cancel := simctx.WithCancel(p)
		sim.Go(func() { p.cancel(context.Canceled) })
		child.Done().Recv()
		c.Equal("child Err", child.Err(), context.Canceled)
		cancel()

		p2 := newCustom()
		_, cancel2 := simctx.WithCancel(p2)
		cancel2() // the watcher ends: no leak
	})
}

func TestControlledFromStd(t *testing.T) {
	exploreAll(t, func(c *checker) {
		// Already canceled: canceled at once.
		done, cancelDone := context.WithCancelCause(context.Background())
		boom := errors.New("boom")
		cancelDone(boom)
		sc := simctx.FromStd(done)
		c.Equal("canceled Err", sc.Err(), context.Canceled)
		c.Equal("canceled Cause", simctx.Cause(sc), boom)

		// Canceled during the execution, from outside weft's events: seen
		// at the next Err or Done of the context or of its descendants.
		std, stdCancel := context.WithCancel(context.WithValue(context.Background(), stdKey{}, 1))
		sc = simctx.FromStd(std)
		child, cancelChild := simctx.WithTimeout(simctx.WithValue(sc, "k", 2), time.Hour)
		defer cancelChild()
		c.Equal("value", child.Value(stdKey{}), 1)
		c.Equal("Err before", child.Err(), nil)
		stdCancel()
		c.Equal("child Err", child.Err(), context.Canceled)
		c.Equal("closed", closed(child.Done()), true)
		c.Equal("Err", sc.Err(), context.Canceled)

		// Never canceled.
		c.Equal("Background", simctx.FromStd(context.Background()).Done() == nil, true)
	})
}

func TestControlledToStd(t *testing.T) {
	exploreAll(t, func(c *checker) {
		ctx, cancel := simctx.WithCancel(simctx.Background())
		std := simctx.ToStd(simctx.WithValue(ctx, stdKey{}, 5))
		c.Equal("value", std.Value(stdKey{}), 5)
		sim.Go(cancel)
		ctx.Done().Recv()
		// Closed in the same step as Err was set.
		c.Equal("raw closed", rawClosed(std.Done()), true)
		c.Equal("Err", std.Err(), context.Canceled)

		// A deadline on virtual time closes the raw channel too.
		tctx, tcancel := simctx.WithTimeout(simctx.Background(), time.Hour)
		defer tcancel()
		tstd := simctx.ToStd(tctx)
		tctx.Done().Recv()
		c.Equal("timer raw closed", rawClosed(tstd.Done()), true)
		c.Equal("timer Err", tstd.Err(), context.DeadlineExceeded)
	})
}
