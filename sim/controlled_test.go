package sim_test

import (
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weftdev/weft/explore"
	"github.com/weftdev/weft/internal/simtest"
	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
)

// Controlled-mode tests: bodies run under sched.Run over many seeds with
// both strategies. An invariant that breaks in any execution fails the test,
// and so does any failure the controller reports where none is expected.

// seeds is the number of executions per strategy of each exploring test.
const seeds = 200

// strategies, checker and exploreAll are simtest's.
var strategies = simtest.Strategies

type checker = simtest.Checker

// exploreAll runs body over seeds seeds under every strategy, and fails at
// the first execution that reports a failure or breaks an invariant.
func exploreAll(t *testing.T, body func(c *checker)) {
	t.Helper()
	simtest.ExploreAll(t, seeds, body)
}

// runOnce runs body once under a random walk.
func runOnce(body func()) *sched.Result {
	return sched.Run(body, explore.RandomWalk(1), simtest.Options())
}

// wantFailure checks that r failed with kind, and, if msg is not empty, with
// that message.
func wantFailure(t *testing.T, r *sched.Result, kind sched.FailureKind, msg string) {
	t.Helper()
	if r.Failure == nil {
		t.Fatalf("no failure, want %v", kind)
	}
	if r.Failure.Kind != kind {
		t.Fatalf("failure %v (%s), want %v", r.Failure.Kind, r.Failure.Summary(), kind)
	}
	if msg != "" && r.Failure.Message != msg {
		t.Fatalf("failure message %q, want %q", r.Failure.Message, msg)
	}
}

// site returns the file:line of the caller's caller plus delta lines, as
// failures name sites.
func site(delta int) string {
	_, file, line, _ := runtime.Caller(1)
	return sched.Site(file, line+delta)
}

func TestControlledMutexExclusion(t *testing.T) {
	exploreAll(t, func(c *checker) {
		var mu sim.Mutex
		var wg sim.WaitGroup
		var x sim.Var[int]
		n, inside := 0, 0
		for range 3 {
			wg.Go(func() {
				for range 2 {
					mu.Lock()
					inside++
					if inside != 1 {
						c.Errorf("%d goroutines inside the critical section", inside)
					}
					n++
					x.Store(x.Load() + 1) // two events: the lock must keep others out
					inside--
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		c.Equal("counter", n, 6)
		c.Equal("Var counter", x.Load(), 6)
	})
}

func TestControlledMutexTryLock(t *testing.T) {
	exploreAll(t, func(c *checker) {
		var mu sim.Mutex
		var wg sim.WaitGroup
		held := 0
		for range 3 {
			wg.Go(func() {
				if mu.TryLock() {
					held++
					if held != 1 {
						c.Errorf("TryLock succeeded while the mutex was held")
					}
					sim.Yield()
					held--
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if !mu.TryLock() {
			c.Errorf("TryLock of a free mutex failed")
		}
	})
}

func TestControlledUnlockUnlocked(t *testing.T) {
	r := runOnce(func() {
		var mu sim.Mutex
		mu.Unlock()
	})
	wantFailure(t, r, sched.Panic, "sync: unlock of unlocked mutex")
}

func TestControlledRWMutex(t *testing.T) {
	// Readers hold the lock together: the counts are atomics (sync/atomic's,
	// not events), since readers are not ordered with each other.
	var maxReaders atomic.Int64
	exploreAll(t, func(c *checker) {
		var rw sim.RWMutex
		var wg sim.WaitGroup
		var readers, writers atomic.Int64
		for range 2 {
			wg.Go(func() {
				rw.RLock()
				n := readers.Add(1)
				if n > maxReaders.Load() {
					maxReaders.Store(n)
				}
				if writers.Load() != 0 {
					c.Errorf("a reader got in while a writer held the lock")
				}
				sim.Yield()
				readers.Add(-1)
				rw.RUnlock()
			})
		}
		for range 2 {
			wg.Go(func() {
				rw.Lock()
				if w, r := writers.Add(1), readers.Load(); w != 1 || r != 0 {
					c.Errorf("writer inside with %d writers and %d readers", w, r)
				}
				sim.Yield()
				writers.Add(-1)
				rw.Unlock()
			})
		}
		// RLocker is a sync.Locker for readers.
		l := rw.RLocker()
		l.Lock()
		if writers.Load() != 0 {
			c.Errorf("RLocker got in while a writer held the lock")
		}
		l.Unlock()
		wg.Wait()
	})
	if n := maxReaders.Load(); n != 2 {
		t.Errorf("readers never shared the lock: at most %d at a time", n)
	}
}

func TestControlledRWMutexTry(t *testing.T) {
	r := runOnce(func() {
		var rw sim.RWMutex
		rw.RLock()
		if rw.TryLock() {
			panic("TryLock succeeded with a reader inside")
		}
		if !rw.TryRLock() {
			panic("TryRLock failed with only readers inside")
		}
		rw.RUnlock()
		rw.RUnlock()
		if !rw.TryLock() {
			panic("TryLock of a free RWMutex failed")
		}
		if rw.TryRLock() {
			panic("TryRLock succeeded with a writer inside")
		}
		rw.Unlock()
	})
	if r.Failure != nil {
		t.Fatal(r.Failure.Summary())
	}
}

func TestControlledWaitGroup(t *testing.T) {
	exploreAll(t, func(c *checker) {
		var wg sim.WaitGroup
		var done [3]sim.Var[bool]
		wg.Add(len(done))
		for i := range done {
			sim.Go(func() {
				done[i].Store(true)
				wg.Done()
			})
		}
		// A second waiter, besides the root.
		var waiters sim.WaitGroup
		waiters.Go(func() {
			wg.Wait()
			for i := range done {
				if !done[i].Load() {
					c.Errorf("Wait returned before goroutine %d was done", i)
				}
			}
		})
		wg.Wait()
		for i := range done {
			if !done[i].Load() {
				c.Errorf("Wait returned before goroutine %d was done", i)
			}
		}
		waiters.Wait()
		wg.Wait() // a zero counter does not block
	})
}

func TestControlledWaitGroupNegative(t *testing.T) {
	r := runOnce(func() {
		var wg sim.WaitGroup
		wg.Done()
	})
	wantFailure(t, r, sched.Panic, "sync: negative WaitGroup counter")
}

func TestControlledCondBroadcast(t *testing.T) {
	exploreAll(t, func(c *checker) {
		var mu sim.Mutex
		cond := sim.NewCond(&mu)
		var wg sim.WaitGroup
		ready, woke := false, 0
		for range 3 {
			wg.Go(func() {
				mu.Lock()
				for !ready {
					cond.Wait()
				}
				woke++
				mu.Unlock()
			})
		}
		mu.Lock()
		ready = true
		cond.Broadcast()
		mu.Unlock()
		wg.Wait()
		c.Equal("woken", woke, 3)
	})
}

func TestControlledCondSignal(t *testing.T) {
	exploreAll(t, func(c *checker) {
		var mu sim.Mutex
		cond := sim.NewCond(&mu)
		var wg sim.WaitGroup
		tokens, took := 0, 0
		for range 2 {
			wg.Go(func() {
				mu.Lock()
				for tokens == 0 {
					cond.Wait()
				}
				tokens--
				took++
				mu.Unlock()
			})
		}
		for range 2 {
			mu.Lock()
			tokens++
			cond.Signal()
			mu.Unlock()
		}
		wg.Wait()
		c.Equal("tokens taken", took, 2)
	})
}

func TestControlledCondSignalWakesOne(t *testing.T) {
	exploreAll(t, func(c *checker) {
		var mu sim.Mutex
		cond := sim.NewCond(&mu)
		cond.Signal() // no waiter: nothing is remembered
		woke := 0
		var wg sim.WaitGroup
		for range 3 {
			wg.Go(func() {
				mu.Lock()
				cond.Wait()
				woke++
				mu.Unlock()
			})
		}
		sim.Sleep(time.Second) // time moves once every waiter is in Wait
		mu.Lock()
		c.Equal("woken before Signal", woke, 0)
		cond.Signal()
		mu.Unlock()
		sim.Sleep(time.Second)
		mu.Lock()
		c.Equal("woken by one Signal", woke, 1)
		cond.Broadcast()
		mu.Unlock()
		wg.Wait()
		c.Equal("woken", woke, 3)
	})
}

func TestControlledCondWaitForever(t *testing.T) {
	// Nobody signals: the waiter deadlocks, and the report names Cond.Wait.
	r := runOnce(func() {
		var mu sim.Mutex
		cond := sim.NewCond(&mu)
		mu.Lock()
		cond.Wait()
	})
	wantFailure(t, r, sched.Deadlock, "")
	if len(r.Failure.Waiting) != 1 || r.Failure.Waiting[0].Op != "Cond.Wait" {
		t.Fatalf("waiting: %+v", r.Failure.Waiting)
	}
}

func TestControlledOnce(t *testing.T) {
	exploreAll(t, func(c *checker) {
		var once sim.Once
		var wg sim.WaitGroup
		calls, initialized := 0, false
		for range 3 {
			wg.Go(func() {
				once.Do(func() {
					calls++
					sim.Yield() // others arrive while f runs
					initialized = true
				})
				if !initialized {
					c.Errorf("Do returned before f finished")
				}
			})
		}
		wg.Wait()
		c.Equal("calls", calls, 1)
	})
}

func TestControlledOncePanic(t *testing.T) {
	r := runOnce(func() {
		var once sim.Once
		func() {
			defer func() { recover() }()
			once.Do(func() { panic("first") })
		}()
		once.Do(func() { panic("f ran again after a panicking f") })
	})
	if r.Failure != nil {
		t.Fatal(r.Failure.Summary())
	}
}

func TestControlledUnbufferedRendezvous(t *testing.T) {
	exploreAll(t, func(c *checker) {
		ch := sim.NewChan[int](0)
		var sent sim.Var[int] // how many sends have returned
		sim.Go(func() {
			for i := range 5 {
				ch.Send(i)
				sent.Store(i + 1)
			}
			ch.Close()
		})
		for i := range 5 {
			if n := sent.Load(); n > i {
				c.Errorf("send %d returned before its value was received", n)
			}
			c.Equal("received", ch.Recv(), i)
		}
		if v, ok := ch.RecvOK(); ok || v != 0 {
			c.Errorf("RecvOK on a closed channel: %v, %v", v, ok)
		}
	})
}

func TestControlledUnbufferedManySenders(t *testing.T) {
	exploreAll(t, func(c *checker) {
		ch := sim.NewChan[int](0)
		for i := range 3 {
			sim.Go(func() { ch.Send(1 << i) })
		}
		sum := 0
		for range 3 {
			sum += ch.Recv()
		}
		c.Equal("sum", sum, 7)
		c.Equal("Len of an unbuffered channel", ch.Len(), 0)
	})
}

func TestControlledBufferedFIFO(t *testing.T) {
	exploreAll(t, func(c *checker) {
		ch := sim.NewChan[int](3)
		sim.Go(func() {
			for i := range 8 {
				ch.Send(i)
			}
			ch.Close()
		})
		want := 0
		for v := range ch.All() {
			if n := ch.Len(); n < 0 || n > ch.Cap() {
				c.Errorf("Len %d out of [0, %d]", n, ch.Cap())
			}
			c.Equal("received", v, want)
			want++
		}
		c.Equal("values received", want, 8)
	})
}

func TestControlledCloseDrains(t *testing.T) {
	exploreAll(t, func(c *checker) {
		ch := sim.NewChan[string](2)
		done := sim.NewChan[struct{}](0)
		sim.Go(func() {
			ch.Send("a")
			ch.Send("b")
			ch.Close()
			done.Close()
		})
		done.Recv() // a receive from a closed channel
		c.Equal("Len after close", ch.Len(), 2)
		v, ok := ch.RecvOK()
		c.Equal("1st", []any{v, ok}, []any{"a", true})
		v, ok = ch.RecvOK()
		c.Equal("2nd", []any{v, ok}, []any{"b", true})
		v, ok = ch.RecvOK()
		c.Equal("drained", []any{v, ok}, []any{"", false})
		c.Equal("drained Recv", ch.Recv(), "")
	})
}

func TestControlledCloseWakesReceivers(t *testing.T) {
	exploreAll(t, func(c *checker) {
		ch := sim.NewChan[int](0)
		var wg sim.WaitGroup
		for range 2 {
			wg.Go(func() {
				if v, ok := ch.RecvOK(); ok || v != 0 {
					c.Errorf("receive from a closed channel: %v, %v", v, ok)
				}
			})
		}
		ch.Close()
		wg.Wait()
	})
}

func TestControlledSendOnClosed(t *testing.T) {
	for _, capacity := range []int{0, 1} {
		r := runOnce(func() {
			ch := sim.NewChan[int](capacity)
			ch.Close()
			ch.Send(1)
		})
		wantFailure(t, r, sched.Panic, "send on closed channel")
		if r.Failure.Goroutine != "0" {
			t.Errorf("goroutine %q, want 0", r.Failure.Goroutine)
		}
	}
}

func TestControlledCloseWakesBlockedSender(t *testing.T) {
	// A sender blocked on an unbuffered channel panics when it is closed.
	r := runOnce(func() {
		ch := sim.NewChan[int](0)
		sim.Go(func() { ch.Send(1) })
		sim.Yield()
		sim.Sleep(1) // let the sender block first
		ch.Close()
		sim.Sleep(1)
	})
	wantFailure(t, r, sched.Panic, "send on closed channel")
	if r.Failure.Goroutine != "0.1" {
		t.Errorf("goroutine %q, want 0.1", r.Failure.Goroutine)
	}
}

func TestControlledCloseTwice(t *testing.T) {
	r := runOnce(func() {
		ch := sim.NewChan[int](1)
		ch.Close()
		ch.Close()
	})
	wantFailure(t, r, sched.Panic, "close of closed channel")
}

func TestControlledCloseNil(t *testing.T) {
	r := runOnce(func() {
		var ch *sim.Chan[int]
		ch.Close()
	})
	wantFailure(t, r, sched.Panic, "close of nil channel")
}

func TestControlledNilChannelDeadlock(t *testing.T) {
	var ch *sim.Chan[int]
	for name, op := range map[string]func(){
		"Send":   func() { ch.Send(1) },
		"Recv":   func() { ch.Recv() },
		"RecvOK": func() { ch.RecvOK() },
		"Select": func() { sim.Select(sim.OnRecv(ch, nil), sim.OnSend(ch, 1, nil)) },
		"empty":  func() { sim.Select() },
	} {
		r := runOnce(op)
		if r.Failure == nil || r.Failure.Kind != sched.Deadlock {
			t.Errorf("%s on a nil channel: %s, want a deadlock", name, r.Failure.Summary())
		}
	}
	if ch.Len() != 0 || ch.Cap() != 0 {
		t.Errorf("nil channel: Len %d, Cap %d", ch.Len(), ch.Cap())
	}
}

func TestControlledSelectDefault(t *testing.T) {
	exploreAll(t, func(c *checker) {
		a := sim.NewChan[int](1)
		b := sim.NewChan[int](0)
		var nilch *sim.Chan[int]
		ranDefault := false
		i := sim.Select(
			sim.OnRecv(a, func(int) { c.Errorf("received from an empty channel") }),
			sim.OnSend(b, 1, func() { c.Errorf("sent with no receiver") }),
			sim.OnRecv(nilch, nil),
			sim.OnDefault(func() { ranDefault = true }),
		)
		c.Equal("case", i, 3)
		c.Equal("default ran", ranDefault, true)
		// A ready case beats the default.
		a.Send(7)
		got := 0
		i = sim.Select(sim.OnDefault(nil), sim.OnRecv(a, func(v int) { got = v }))
		c.Equal("case", i, 1)
		c.Equal("value", got, 7)
	})
}

func TestControlledSelectBothReady(t *testing.T) {
	chosen := map[int]int{}
	exploreAll(t, func(c *checker) {
		a := sim.NewChan[string](1)
		b := sim.NewChan[string](1)
		a.Send("a")
		b.Send("b")
		got := ""
		i := sim.Select(
			sim.OnRecv(a, func(v string) { got = v }),
			sim.OnRecvOK(b, func(v string, ok bool) {
				if !ok {
					c.Errorf("ok false")
				}
				got = v
			}),
		)
		chosen[i]++
		c.Equal("value", got, []string{"a", "b"}[i])
		c.Equal("Len of the other", []*sim.Chan[string]{b, a}[i].Len(), 1)
	})
	if chosen[0] == 0 || chosen[1] == 0 {
		t.Errorf("with two ready cases, the choices were %v", chosen)
	}
}

func TestControlledSelectPairsWithSender(t *testing.T) {
	exploreAll(t, func(c *checker) {
		ch := sim.NewChan[int](0)
		out := sim.NewChan[int](0)
		var nilch *sim.Chan[int]
		sim.Go(func() { ch.Send(42) })
		sim.Go(func() { c.Equal("received from select's send", out.Recv(), 7) })
		got := 0
		c.Equal("recv case", sim.Select(sim.OnRecv(nilch, nil), sim.OnRecv(ch, func(v int) { got = v })), 1)
		c.Equal("value", got, 42)
		c.Equal("send case", sim.Select(sim.OnSend(out, 7, nil), sim.OnRecv(nilch, nil)), 0)
	})
}

func TestControlledSelectBothSides(t *testing.T) {
	// Two selects, each offering a send and a receive, pair with each other
	// in one of the two ways.
	ways := map[int]int{}
	exploreAll(t, func(c *checker) {
		a := sim.NewChan[int](0)
		b := sim.NewChan[int](0)
		var i2 int
		var got1, got2 int
		done := sim.NewChan[struct{}](0)
		sim.Go(func() {
			i2 = sim.Select(sim.OnRecv(a, func(v int) { got2 = v }), sim.OnSend(b, 2, nil))
			done.Close()
		})
		i1 := sim.Select(sim.OnSend(a, 1, nil), sim.OnRecv(b, func(v int) { got1 = v }))
		done.Recv()
		c.Equal("cases", i1, i2)
		if i1 == 0 {
			c.Equal("value over a", got2, 1)
		} else {
			c.Equal("value over b", got1, 2)
		}
		ways[i1]++
	})
	if ways[0] == 0 || ways[1] == 0 {
		t.Errorf("the selects paired only one way: %v", ways)
	}
}

func TestControlledSelectNeverPairsWithItself(t *testing.T) {
	r := runOnce(func() {
		ch := sim.NewChan[int](0)
		sim.Select(sim.OnSend(ch, 1, nil), sim.OnRecv(ch, nil))
	})
	wantFailure(t, r, sched.Deadlock, "")

	// With a receiver elsewhere, the send case is the one that proceeds.
	exploreAll(t, func(c *checker) {
		ch := sim.NewChan[int](0)
		sim.Go(func() { c.Equal("received", ch.Recv(), 1) })
		c.Equal("case", sim.Select(sim.OnSend(ch, 1, nil), sim.OnRecv(ch, func(int) { c.Errorf("received own send") })), 0)
	})
}

func TestControlledSelectSendOnClosed(t *testing.T) {
	r := runOnce(func() {
		ch := sim.NewChan[int](1)
		ch.Close()
		sim.Select(sim.OnSend(ch, 1, nil), sim.OnDefault(nil))
	})
	wantFailure(t, r, sched.Panic, "send on closed channel")
}

func TestControlledSelectMultipleDefaults(t *testing.T) {
	r := runOnce(func() { sim.Select(sim.OnDefault(nil), sim.OnDefault(nil)) })
	wantFailure(t, r, sched.Panic, "sim.Select: multiple default cases")
}

func TestControlledAtomics(t *testing.T) {
	exploreAll(t, func(c *checker) {
		var i32 sim.Int32
		var i64 sim.Int64
		var u64 sim.Uint64
		var flag sim.Bool
		var p sim.Pointer[int]
		var wg sim.WaitGroup
		for k := range 3 {
			wg.Go(func() {
				i32.Add(1)
				i64.Add(2)
				u64.Add(3)
				for {
					old := i32.Load()
					if i32.CompareAndSwap(old, old+10) {
						break
					}
				}
				if !flag.Swap(true) {
					v := k
					p.Store(&v)
				}
			})
		}
		wg.Wait()
		c.Equal("Int32", i32.Load(), int32(33))
		c.Equal("Int64", i64.Load(), int64(6))
		c.Equal("Uint64", u64.Load(), uint64(9))
		c.Equal("Bool", flag.Load(), true)
		if v := p.Load(); v == nil || *v < 0 || *v > 2 {
			c.Errorf("Pointer: %v", v)
		}
		c.Equal("Int64.Swap", i64.Swap(1), int64(6))
		i64.Store(5)
		c.Equal("Int64.CompareAndSwap", i64.CompareAndSwap(5, 8), true)
		c.Equal("Int64", i64.Load(), int64(8))
	})
}

func TestControlledLeak(t *testing.T) {
	r := runOnce(func() {
		ch := sim.NewChan[int](0)
		sim.Go(func() { ch.Recv() })
	})
	wantFailure(t, r, sched.Leak, "")
	if len(r.Failure.Waiting) != 1 {
		t.Fatalf("waiting: %+v", r.Failure.Waiting)
	}
	w := r.Failure.Waiting[0]
	if w.Goroutine != "0.1" || w.Op != "Chan.Recv" {
		t.Errorf("waiting: %+v", w)
	}
}

func TestControlledDeadlockReport(t *testing.T) {
	var want string
	r := runOnce(func() {
		var a, b sim.Mutex
		done := sim.NewChan[int](0)
		a.Lock()
		sim.Go(func() {
			b.Lock()
			done.Send(1)
			a.Lock()
		})
		done.Recv()
		want = site(1)
		b.Lock()
	})
	wantFailure(t, r, sched.Deadlock, "")
	ops := map[string]string{}
	for _, w := range r.Failure.Waiting {
		ops[w.Goroutine] = w.Op + "@" + w.Site
	}
	if ops["0"] != "Mutex.Lock@"+want || !strings.HasPrefix(ops["0.1"], "Mutex.Lock@") {
		t.Errorf("waiting: %v", ops)
	}
}

func TestControlledPanicInChild(t *testing.T) {
	r := runOnce(func() {
		done := sim.NewChan[int](0)
		sim.Go(func() { panic("boom") })
		done.Recv()
	})
	wantFailure(t, r, sched.Panic, "boom")
	if r.Failure.Goroutine != "0.1" {
		t.Errorf("goroutine %q, want 0.1", r.Failure.Goroutine)
	}
	if !strings.Contains(r.Failure.Stack, "TestControlledPanicInChild") {
		t.Errorf("the stack does not show the panicking function:\n%s", r.Failure.Stack)
	}
}

// panicSites runs two panicking executions and returns the sites they
// report, with the sites of the panicking statements.
func panicSites() (got, want [2]string) {
	r := runOnce(func() {
		done := sim.NewChan[int](0)
		sim.Go(func() {
			want[0] = site(1)
			panic("boom")
		})
		done.Recv()
	})
	got[0] = r.Failure.Site
	// A panic raised inside a primitive is reported at the user's call.
	r = runOnce(func() {
		ch := sim.NewChan[int](1)
		ch.Close()
		want[1] = site(1)
		ch.Send(1)
	})
	got[1] = r.Failure.Site
	return got, want
}

func TestControlledPanicSite(t *testing.T) {
	got, want := panicSites()
	if got != want {
		t.Errorf("sites %q, want %q", got, want)
	}
}

func TestControlledDeadlockSiteInRangeLoop(t *testing.T) {
	var want string
	r := runOnce(func() {
		ch := sim.NewChan[int](0)
		want = site(1)
		for range ch.All() {
		}
	})
	wantFailure(t, r, sched.Deadlock, "")
	if got := r.Failure.Waiting[0].Site; got != want {
		t.Errorf("site %q, want %q", got, want)
	}
}

// tracedBody performs events through small sim functions that the compiler
// inlines into the caller (Chan.Recv, WaitGroup.Done, After).
func tracedBody() {
	ch := sim.NewChan[int](1)
	var wg sim.WaitGroup
	wg.Add(2)
	for range 2 {
		sim.Go(func() {
			ch.Send(1)
			wg.Done()
		})
	}
	ch.Recv()
	ch.Recv()
	wg.Wait()
	sim.After(time.Second)
}

// tracedBodyLines maps the operations of tracedBody to the lines of its
// source where they are performed.
var tracedBodyLines = map[string][]int{
	"WaitGroup.Add":  {3}, // from the top of the function
	"WaitGroup.Done": {7},
	"go":             {5},
	"Chan.Send":      {6},
	"Chan.Recv":      {10, 11},
	"WaitGroup.Wait": {12},
	"Timer.New":      {13},
}

func TestControlledTraceSites(t *testing.T) {
	fn := runtime.FuncForPC(reflect.ValueOf(tracedBody).Pointer())
	file, top := fn.FileLine(fn.Entry())
	r := sched.Run(tracedBody, explore.RandomWalk(1), sched.Options{Trace: true})
	if r.Failure != nil {
		t.Fatal(r.Failure.Summary())
	}
	for _, e := range r.Trace {
		ok := false
		for _, delta := range tracedBodyLines[e.Op] {
			ok = ok || e.Site == sched.Site(file, top+delta)
		}
		if !ok {
			t.Errorf("event %s %d %s at %s: not a line of tracedBody that performs %[3]s", e.G, e.N, e.Op, e.Site)
		}
	}
}

func TestControlledReplayTracedSchedule(t *testing.T) {
	body := tracedBody
	for seed := range uint64(20) {
		r := sched.Run(body, explore.RandomWalk(seed), sched.Options{Trace: true})
		rp := explore.Follow(r.Schedule())
		r2 := sched.Run(body, rp, sched.Options{})
		if r2.Hash != r.Hash {
			t.Fatalf("seed %d: replay hash %x, want %x", seed, r2.Hash, r.Hash)
		}
		if d := rp.Drift(); len(d) != 0 {
			t.Fatalf("seed %d: replay of an unchanged program drifted: %q", seed, d)
		}
	}
}

func TestControlledGoroutineLineage(t *testing.T) {
	var ids []string
	r := runOnce(func() {
		var wg sim.WaitGroup
		record := func() { ids = append(ids, sched.Current().ID()) }
		record()
		wg.Go(func() {
			record()
			wg.Go(record)
		})
		wg.Wait()
		wg.Go(record)
		wg.Wait()
	})
	if r.Failure != nil {
		t.Fatal(r.Failure.Summary())
	}
	if r.Goroutines != 4 {
		t.Errorf("Goroutines %d, want 4", r.Goroutines)
	}
	got := strings.Join(ids, " ")
	if got != "0 0.1 0.1.1 0.2" {
		t.Errorf("lineages %q", got)
	}
}

func TestControlledIntn(t *testing.T) {
	for _, s := range strategies {
		seen := map[int]int{}
		for seed := range uint64(seeds) {
			r := sched.Run(func() {
				seen[sim.Intn(3)]++
				if sim.Intn(1) != 0 {
					panic("Intn(1) != 0")
				}
			}, s.Make(seed), sched.Options{})
			if r.Failure != nil {
				t.Fatalf("%s seed %d: %s", s.Name, seed, r.Failure.Summary())
			}
		}
		if len(seen) != 3 || seen[0] == 0 || seen[1] == 0 || seen[2] == 0 {
			t.Errorf("%s: Intn(3) gave %v", s.Name, seen)
		}
	}
	r := runOnce(func() { sim.Intn(0) })
	wantFailure(t, r, sched.Panic, "sim.Intn: invalid argument to Intn")
}

// busy exercises most primitives, for the determinism tests.
func busy() {
	var mu sim.Mutex
	var wg sim.WaitGroup
	var x sim.Var[int]
	ch := sim.NewChan[int](1)
	un := sim.NewChan[int](0)
	for i := range 3 {
		wg.Go(func() {
			mu.Lock()
			x.Store(x.Load() + i)
			mu.Unlock()
			sim.Sleep(time.Duration(i) * time.Millisecond)
			sim.Select(sim.OnSend(ch, i, nil), sim.OnSend(un, i, nil))
		})
	}
	for range 3 {
		sim.Select(sim.OnRecv(ch, nil), sim.OnRecv(un, nil))
		sim.Intn(4)
	}
	wg.Wait()
}

func TestControlledDeterminism(t *testing.T) {
	for _, s := range strategies {
		hashes := map[uint64]bool{}
		for seed := range uint64(20) {
			r1 := sched.Run(busy, s.Make(seed), sched.Options{})
			r2 := sched.Run(busy, s.Make(seed), sched.Options{})
			if r1.Failure != nil || r2.Failure != nil {
				t.Fatalf("%s seed %d: %s / %s", s.Name, seed, r1.Failure.Summary(), r2.Failure.Summary())
			}
			if r1.Hash != r2.Hash || r1.Steps != r2.Steps || r1.Elapsed != r2.Elapsed {
				t.Errorf("%s seed %d: hash %x/%x steps %d/%d", s.Name, seed, r1.Hash, r2.Hash, r1.Steps, r2.Steps)
			}
			if !reflect.DeepEqual(r1.Schedule(), r2.Schedule()) {
				t.Errorf("%s seed %d: schedules differ:\n%v\n%v", s.Name, seed, r1.Schedule(), r2.Schedule())
			}
			hashes[r1.Hash] = true

			// The schedule alone replays the execution.
			rp := explore.Follow(r1.Schedule())
			r3 := sched.Run(busy, rp, sched.Options{})
			if r3.Hash != r1.Hash || len(rp.Drift()) != 0 {
				t.Errorf("%s seed %d: replay hash %x, want %x; drift %v", s.Name, seed, r3.Hash, r1.Hash, rp.Drift())
			}
		}
		if len(hashes) < 2 {
			t.Errorf("%s: 20 seeds gave %d distinct executions", s.Name, len(hashes))
		}
	}
}

func TestControlledFindsLostUpdate(t *testing.T) {
	body := func() {
		var x sim.Var[int]
		var wg sim.WaitGroup
		for range 2 {
			wg.Go(func() { x.Store(x.Load() + 1) })
		}
		wg.Wait()
		if v := x.Load(); v != 2 {
			panic(fmt.Sprintf("lost update: x = %d", v))
		}
	}
	for _, s := range strategies {
		found := 0
		var first *sched.Result
		for seed := range uint64(seeds) {
			r := sched.Run(body, s.Make(seed), sched.Options{})
			if r.Failure == nil {
				continue
			}
			if r.Failure.Kind != sched.Panic || r.Failure.Message != "lost update: x = 1" {
				t.Fatalf("%s seed %d: %s", s.Name, seed, r.Failure.Summary())
			}
			found++
			if first == nil {
				first = r
			}
		}
		t.Logf("%s: lost update in %d/%d executions", s.Name, found, seeds)
		if first == nil {
			t.Errorf("%s: the lost update was never found", s.Name)
			continue
		}
		if len(first.Schedule()) == 0 {
			t.Errorf("%s: a failing execution with an empty schedule", s.Name)
		}
		rp := explore.Follow(first.Schedule())
		r := sched.Run(body, rp, sched.Options{})
		if r.Hash != first.Hash {
			t.Errorf("%s: replay hash %x, want %x", s.Name, r.Hash, first.Hash)
		}
		if r.Failure == nil || r.Failure.Signature() != first.Failure.Signature() {
			t.Errorf("%s: replay failure %s, want %s", s.Name, r.Failure.Summary(), first.Failure.Summary())
		}
		if d := rp.Drift(); len(d) != 0 {
			t.Errorf("%s: replay drifted: %v", s.Name, d)
		}
	}
}

func TestControlledDefaultPolicyIsSequential(t *testing.T) {
	// Replaying an empty schedule runs the default policy: the root runs
	// until it blocks, so the unprotected increments do not interleave.
	r := sched.Run(func() {
		var x sim.Var[int]
		var wg sim.WaitGroup
		for range 2 {
			wg.Go(func() { x.Store(x.Load() + 1) })
		}
		wg.Wait()
		if x.Load() != 2 {
			panic("lost update under the default policy")
		}
	}, explore.Follow(nil), sched.Options{})
	if r.Failure != nil || len(r.Schedule()) != 0 {
		t.Fatalf("failure %s, schedule %v", r.Failure.Summary(), r.Schedule())
	}
}

func TestControlledStateIsPerExecution(t *testing.T) {
	// A primitive used by one execution starts afresh in the next; only the
	// values of Var and atomics persist.
	var mu sim.Mutex
	var wg sim.WaitGroup
	ch := sim.NewChan[int](1)
	var x sim.Var[int]
	var once sim.Once
	calls := 0
	for i := range 3 {
		r := runOnce(func() {
			mu.Lock() // left locked
			wg.Add(1) // never done
			ch.Send(i)
			x.Store(x.Load() + 1)
			once.Do(func() { calls++ })
		})
		if r.Failure != nil {
			t.Fatalf("execution %d: %s", i, r.Failure.Summary())
		}
	}
	if x.Load() != 3 || calls != 3 {
		t.Errorf("x %d, once calls %d", x.Load(), calls)
	}
}

// An operation that waits is one operation whatever the schedule: the
// goroutine's operation counter does not depend on whether it blocked,
// although its event counter does.
func TestControlledOperationCounterIgnoresWaiting(t *testing.T) {
	body := func() {
		var wg sim.WaitGroup
		var v sim.Var[int]
		wg.Go(func() { v.Store(1) })
		wg.Wait()  // blocks, or not, by the schedule
		v.Store(2) // the root's 4th operation: Add, go, Wait, this Store
	}
	events, ops := map[int]bool{}, map[int]bool{}
	for seed := range uint64(100) {
		r := sched.Run(body, explore.RandomWalk(seed), sched.Options{Trace: true})
		if r.Failure != nil {
			t.Fatal(r.Failure.Summary())
		}
		for _, e := range r.Trace {
			if e.G == "0" && e.Op == "Var.Store" {
				events[e.N], ops[e.Ops] = true, true
			}
		}
	}
	if len(ops) != 1 || !ops[4] {
		t.Errorf("operation counters of the last Store: %v, want always 4", ops)
	}
	if len(events) < 2 {
		t.Errorf("event counters %v: the Wait never blocked, the test shows nothing", events)
	}
}

// TestPlainStateCarriesIn: what plain mode did to an object before the
// executions (a channel closed, a Once done, as at package init) holds in
// every execution, as it does for go test's run of the test.
func TestPlainStateCarriesIn(t *testing.T) {
	closed := sim.NewChan[int](1)
	closed.Close()
	open := sim.NewChan[int](0)
	var once sim.Once
	once.Do(func() {})
	exploreAll(t, func(c *checker) {
		if v, ok := closed.RecvOK(); ok || v != 0 {
			c.Errorf("a channel closed before the execution: received %d, %v", v, ok)
		}
		once.Do(func() { c.Errorf("a Once done before the execution ran again") })
		if sim.Select(sim.OnRecv(open, nil), sim.OnDefault(nil)) == 0 {
			c.Errorf("an open channel was ready")
		}
	})
}

// Repro bigcache: a test that checks for leaked goroutines by comparing
// NumGoroutine before and after its work sees its own goroutines only,
// not weft's pooled workers (eleven of them idle after the first
// execution), and the same count all through an execution. Across
// executions the count may differ by goroutines of the process that come
// and go outside them (a worker of an earlier execution still on its way
// out under the race detector, another test's goroutine).
func TestControlledNumGoroutine(t *testing.T) {
	var counts [][3]int
	for range 3 {
		r := sched.Run(func() {
			start := sim.NumGoroutine()
			stop := sim.NewChan[struct{}](0)
			for range 10 {
				sim.Go(func() { stop.Recv() })
			}
			during := sim.NumGoroutine()
			stop.Close()
			sim.Sleep(time.Millisecond) // they end
			counts = append(counts, [3]int{start, during, sim.NumGoroutine()})
		}, explore.RandomWalk(1), sched.Options{})
		if r.Failure != nil {
			t.Fatal(r.Failure.Summary())
		}
	}
	for _, c := range counts {
		if c[1] != c[0]+10 || c[2] != c[0] || c[0] > 10 {
			t.Fatalf("start, during, end: %v, want 10 more during, as many at the end as at the start, and none of weft's pooled workers", counts)
		}
	}
}
