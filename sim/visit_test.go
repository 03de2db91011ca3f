package sim_test

import (
	"strings"
	"testing"
	"time"

	"github.com/weftdev/weft/explore"
	weftrace "github.com/weftdev/weft/internal/race"
	"github.com/weftdev/weft/internal/simtest"
	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
)

// A visitor is a goroutine started in plain mode (sim.Go outside every
// execution, as a package's init starts a purge loop), which runs the
// functions it is handed in real time: hand returns once it runs one,
// without waiting for it to end, and wait waits for its end.
type visitor struct {
	work    chan func()
	started chan struct{}
	done    chan struct{}
}

func startVisitor(t *testing.T) *visitor {
	v := &visitor{work: make(chan func()), started: make(chan struct{}), done: make(chan struct{}, 1)}
	sim.Go(func() {
		for f := range v.work {
			v.started <- struct{}{}
			f()
			v.done <- struct{}{}
		}
	})
	t.Cleanup(func() { close(v.work) })
	return v
}

func (v *visitor) hand(f func()) {
	v.work <- f
	<-v.started
}

func (v *visitor) wait() { <-v.done }

// A goroutine outside the execution that sends on one of its channels (one
// the execution used already: what it never used is plain mode's),
// closes one, receives what it sends, or broadcasts on one of its conds,
// while the execution's goroutines wait for it: the controller performs
// the operation when none of them can run, as though the goroutine ran
// then, and the execution passes as under go test (ants' purge loop hands
// an execution's idle workers their nil). Without visits, the send went
// into the plain buffer, which the execution never sees: a false leak.
func TestOutsideOperationsVisitTheExecution(t *testing.T) {
	if weftrace.Enabled {
		t.Skip("no visits under the race detector")
	}
	v := startVisitor(t)
	for _, tc := range []struct {
		name string
		body func(check func(bool, string))
	}{
		{"unbuffered send", func(check func(bool, string)) {
			ch, got := sim.NewChan[int](0), sim.NewChan[int](1)
			ch.Len() // the execution's, before the visitor uses it
			sim.Go(func() { got.Send(ch.Recv()) })
			v.hand(func() { ch.Send(7) })
			check(got.Recv() == 7, "the worker did not receive the visitor's 7")
		}},
		{"buffered send", func(check func(bool, string)) {
			ch, got := sim.NewChan[func()](1), sim.NewChan[bool](1)
			ch.Len()
			sim.Go(func() {
				for f := range ch.All() {
					if f == nil {
						got.Send(true)
						return
					}
				}
			})
			v.hand(func() { ch.Send(nil) })
			check(got.Recv(), "the worker did not receive its nil")
		}},
		{"close", func(check func(bool, string)) {
			ch := sim.NewChan[int](0)
			ch.Len()
			v.hand(func() { ch.Close() })
			_, ok := ch.RecvOK()
			check(!ok, "the channel is not closed")
		}},
		{"receive", func(check func(bool, string)) {
			ch := sim.NewChan[int](0)
			ch.Len()
			got := 0
			v.hand(func() { got = ch.Recv() })
			ch.Send(3)
			v.wait()
			check(got == 3, "the visitor did not receive the 3")
			v.done <- struct{}{}
		}},
		{"mutex", func(check func(bool, string)) {
			// A server's handler on a goroutine net/http started, which
			// left the execution, locks what the test locks.
			var mu sim.Mutex
			n := 0
			got := sim.NewChan[int](0)
			got.Len()
			mu.Lock()
			v.hand(func() {
				mu.Lock()
				n++
				got.Send(n)
				mu.Unlock()
			})
			mu.Unlock()
			check(got.Recv() == 1, "the visitor did not count under the lock")
			mu.Lock()
			check(n == 1, "the visitor's count is lost")
			mu.Unlock()
		}},
		{"select receive", func(check func(bool, string)) {
			// statedb's changes handler waits for the watch channel the
			// test's commit closes, and for its request's context.
			watch, ctx := sim.NewChan[struct{}](0), make(chan struct{})
			watch.Len()
			got := -1
			v.hand(func() {
				got = sim.Select(sim.OnRecvGo(ctx, nil), sim.OnRecv(watch, nil))
			})
			watch.Close()
			v.wait()
			check(got == 1, "the visitor's select did not see the close")
			v.done <- struct{}{}
		}},
		{"select send", func(check func(bool, string)) {
			ch := sim.NewChan[int](0)
			ch.Len()
			v.hand(func() { sim.Select(sim.OnSend(ch, 4, nil), sim.OnRecvGo(make(chan int), nil)) })
			check(ch.Recv() == 4, "the execution did not receive the visitor's 4")
		}},
		{"select send default", func(check func(bool, string)) {
			// statedb's delete tracker triggers the collector of the
			// test's database from a handler, without waiting.
			trigger, got := sim.NewChan[int](1), sim.NewChan[int](0)
			trigger.Len()
			got.Len()
			v.hand(func() { got.Send(sim.Select(sim.OnSend(trigger, 5, nil), sim.OnDefault(nil))) })
			check(got.Recv() == 0, "the visitor's select took its default")
			check(trigger.Recv() == 5, "the execution did not receive the visitor's 5")
		}},
		{"select outside", func(check func(bool, string)) {
			// A case on a channel of no execution completes the select
			// while it waits for the execution's.
			ch, got, plain := sim.NewChan[int](0), sim.NewChan[int](0), make(chan int, 1)
			ch.Len()
			got.Len()
			v.hand(func() { got.Send(sim.Select(sim.OnRecv(ch, nil), sim.OnRecvGo(plain, nil))) })
			plain <- 1
			check(got.Recv() == 1, "the visitor's select did not take the plain channel's value")
		}},
		{"rwmutex", func(check func(bool, string)) {
			var mu sim.RWMutex
			n := 0
			got := sim.NewChan[int](0)
			got.Len()
			mu.Lock()
			v.hand(func() {
				mu.Lock()
				n++
				got.Send(n)
				mu.Unlock()
			})
			mu.Unlock()
			check(got.Recv() == 1, "the visitor did not count under the lock")
			mu.RLock()
			check(n == 1, "the visitor's count is lost")
			mu.RUnlock()
		}},
		{"rwmutex read", func(check func(bool, string)) {
			// The execution's writer waits for the visitor's read lock.
			var mu sim.RWMutex
			n := 0
			got := sim.NewChan[int](0)
			got.Len()
			mu.Lock()
			v.hand(func() {
				mu.RLock()
				got.Send(1)
				n = 2
				mu.RUnlock()
			})
			mu.Unlock()
			got.Recv()
			mu.Lock()
			check(n == 2, "the writer did not wait for the visitor's read lock")
			mu.Unlock()
		}},
		{"waitgroup done", func(check func(bool, string)) {
			var wg sim.WaitGroup
			n := 0
			wg.Add(1)
			v.hand(func() {
				n = 1
				wg.Done()
			})
			wg.Wait()
			check(n == 1, "Wait returned before the visitor's Done")
		}},
		{"waitgroup wait", func(check func(bool, string)) {
			var wg sim.WaitGroup
			got := sim.NewChan[int](0)
			got.Len()
			n := 0
			wg.Add(1)
			v.hand(func() {
				wg.Wait()
				got.Send(n)
			})
			n = 1
			wg.Done()
			check(got.Recv() == 1, "the visitor's Wait returned before the Done")
		}},
		{"once", func(check func(bool, string)) {
			// The visitor's Do waits for the execution's, and does not
			// call its function again.
			var o sim.Once
			got := sim.NewChan[int](0)
			got.Len()
			n := 0
			o.Do(func() {
				v.hand(func() {
					o.Do(func() { n += 10 })
					got.Send(n)
				})
				n++
			})
			check(got.Recv() == 1, "the visitor's Do did not wait for the execution's, or called its function")
		}},
		{"cond wait", func(check func(bool, string)) {
			var mu sim.Mutex
			c := sim.NewCond(&mu)
			c.Signal()
			ready, got := false, sim.NewChan[bool](0)
			got.Len()
			v.hand(func() {
				mu.Lock()
				for !ready {
					c.Wait()
				}
				mu.Unlock()
				got.Send(ready)
			})
			sim.Yield()
			mu.Lock()
			ready = true
			c.Broadcast()
			mu.Unlock()
			check(got.Recv(), "the visitor did not see ready")
		}},
		{"broadcast", func(check func(bool, string)) {
			var mu sim.Mutex
			c := sim.NewCond(&mu)
			c.Signal()
			woken := sim.NewChan[int](2)
			for i := range 2 {
				sim.Go(func() {
					mu.Lock()
					c.Wait()
					mu.Unlock()
					woken.Send(i)
				})
			}
			sim.Yield()
			sim.Yield()
			mu.Lock()
			v.hand(func() { c.Broadcast() })
			mu.Unlock()
			woken.Recv()
			woken.Recv()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer v.wait()
			r := sched.Run(func() {
				tc.body(func(ok bool, msg string) {
					if !ok {
						t.Error(msg)
					}
				})
			}, explore.RandomWalk(1), simtest.Options())
			if r.Failure != nil {
				t.Fatalf("%s\n%s", r.Failure.Summary(), r.Failure.Message)
			}
		})
	}
}

// A visit that cannot complete before its execution ends (a send into a
// buffer the execution keeps full) goes back to plain mode, and the
// execution fails as Outside, its deadlock after: the goroutine outside is
// the root cause, and no replay runs it.
func TestOutsideVisitRefusedAtTheEndIsReported(t *testing.T) {
	if weftrace.Enabled {
		t.Skip("no visits under the race detector")
	}
	v := startVisitor(t)
	r := sched.Run(func() {
		ch, never := sim.NewChan[int](1), sim.NewChan[int](0)
		ch.Send(1)
		v.hand(func() { ch.Send(2) }) // into the plain buffer, once refused
		never.Recv()
	}, explore.RandomWalk(1), simtest.Options())
	v.wait()
	wantFailure(t, r, sched.Outside, "")
	if !strings.Contains(r.Failure.Message, "Chan.Send on a sim.Chan[int] of the execution") ||
		len(r.More) == 0 || r.More[0].Kind != sched.Deadlock {
		t.Errorf("got %s, then %v\n%s", r.Failure.Summary(), r.More, r.Failure.Message)
	}
}

// A goroutine outside the execution that visits it again after a while
// in real time (a server's handler that sees its request canceled, then
// closes what the test waits for) is not left behind by the execution's
// clock while the execution polls with timers (statedb's test waits for
// it with require.Eventually, 100 polls of 10 ms): at each timer, an
// execution that had visits waits a round in real time for the next one,
// up to visitLinger in all since the last, before the clock moves on.
// Before, the polls ran out in a millisecond of real time.
func TestOutsideVisitorNotLeftBehindByTheClock(t *testing.T) {
	if weftrace.Enabled {
		t.Skip("no visits under the race detector")
	}
	v := startVisitor(t)
	defer v.wait()
	r := sched.Run(func() {
		ch := sim.NewChan[int](1)
		ch.Len()
		v.hand(func() {
			ch.Send(1)
			time.Sleep(20 * time.Millisecond) // real time: the visitor is plain
			ch.Send(2)
		})
		ch.Recv()
		for range 100 {
			got := 0
			sim.Select(sim.OnRecv(ch, func(x int) { got = x }), sim.OnDefault(nil))
			if got == 2 {
				return
			}
			sim.Sleep(10 * time.Millisecond)
		}
		t.Error("the visitor's second send came after a second of polls on the execution's clock")
	}, explore.RandomWalk(1), simtest.Options())
	if r.Failure != nil {
		t.Fatalf("%s\n%s", r.Failure.Summary(), r.Failure.Message)
	}
}
