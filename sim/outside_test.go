package sim_test

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weftdev/weft/explore"
	"github.com/weftdev/weft/internal/simtest"
	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
)

// An outsider is a goroutine started in plain mode before the executions
// that use it, as a package-level janitor is: it runs the functions it is
// handed, in real time.
type outsider struct {
	work chan func()
	done chan struct{}
}

func startOutsider(t *testing.T) *outsider {
	o := &outsider{work: make(chan func()), done: make(chan struct{})}
	go func() {
		for f := range o.work {
			f()
			o.done <- struct{}{}
		}
	}()
	t.Cleanup(func() { close(o.work) })
	return o
}

// do runs f on the outsider and waits for it, with a raw channel round
// trip the controller does not see (f does not block).
func (o *outsider) do(f func()) {
	o.work <- f
	<-o.done
}

// Each primitive whose state belongs to an execution, used by a
// goroutine outside it: the execution fails as Outside, naming the
// operation and the object; the goroutine goes on as in plain mode.
func TestOutsideUseOfAnExecutionsObjectIsReported(t *testing.T) {
	o := startOutsider(t)
	for _, tc := range []struct {
		op, what string
		body     func(outside func(func()))
	}{
		{"Chan.Send", "sim.Chan[int]", func(outside func(func())) {
			ch := sim.NewChan[int](1)
			ch.Len()
			outside(func() { ch.Send(1) }) // into the plain buffer
		}},
		{"Chan.Close", "sim.Chan[int]", func(outside func(func())) {
			ch := sim.NewChan[int](0)
			ch.Len()
			outside(func() { ch.Close() })
		}},
		{"Select", "sim.Chan[int]", func(outside func(func())) {
			ch := sim.NewChan[int](1)
			ch.Len()
			outside(func() { sim.Select(sim.OnSend(ch, 1, nil), sim.OnDefault(nil)) })
		}},
		{"Mutex.Lock", "sim.Mutex", func(outside func(func())) {
			var mu sim.Mutex
			mu.Lock()
			outside(func() { mu.Lock() }) // the plain mutex: at once
			mu.Unlock()
		}},
		{"RWMutex.RLock", "sim.RWMutex", func(outside func(func())) {
			var mu sim.RWMutex
			mu.Lock()
			outside(func() { mu.RLock(); mu.RUnlock() })
			mu.Unlock()
		}},
		{"WaitGroup.Add", "sim.WaitGroup", func(outside func(func())) {
			var wg sim.WaitGroup
			wg.Add(1)
			outside(func() { wg.Add(1); wg.Done() })
			wg.Done()
		}},
		{"Cond.Signal", "sim.Cond", func(outside func(func())) {
			c := sim.NewCond(&sim.Mutex{})
			c.Broadcast()
			outside(func() { c.Signal() })
		}},
		{"Once.Do", "sim.Once", func(outside func(func())) {
			var once sim.Once
			once.Do(func() {})
			outside(func() { once.Do(func() {}) }) // not done in plain mode: runs
		}},
		{"Map.Store", "sim.Map", func(outside func(func())) {
			var m sim.Map
			m.Load(1)
			outside(func() { m.Store(1, 2) })
		}},
		{"Timer.Stop", "sim.Timer", func(outside func(func())) {
			tm := sim.NewTimer(time.Hour)
			outside(func() { tm.Stop() })
			tm.Stop()
		}},
	} {
		t.Run(tc.op, func(t *testing.T) {
			r := sched.Run(func() { tc.body(o.do) }, explore.RandomWalk(1), simtest.Options())
			wantFailure(t, r, sched.Outside, "")
			want := tc.op + " on a " + tc.what + " of the execution"
			if !strings.Contains(r.Failure.Message, want) || !strings.Contains(r.Failure.Message, "started at outside_test.go:") ||
				!strings.HasPrefix(r.Failure.Site, "outside_test.go:") {
				t.Errorf("want %q: %s\n%s", want, r.Failure.Summary(), r.Failure.Stack)
			}
		})
	}
}

// A goroutine outside the executions that uses objects of its own, or
// objects of an execution that is over, changes nothing: the executions
// are those that run without it, event for event.
func TestOutsideGoroutineWithItsOwnObjectsChangesNoExecution(t *testing.T) {
	body := func() {
		var mu sim.Mutex
		ch := sim.NewChan[int](0)
		n := 0
		for range 3 {
			sim.Go(func() { mu.Lock(); n++; v := n; mu.Unlock(); ch.Send(v) })
		}
		for range 3 {
			ch.Recv()
		}
	}
	hashes := func() []uint64 {
		var hs []uint64
		for seed := range uint64(50) {
			r := sched.Run(body, explore.RandomWalk(seed), simtest.Options())
			if r.Failure != nil {
				t.Fatalf("seed %d: %s\n%s", seed, r.Failure.Summary(), r.Failure.Message)
			}
			hs = append(hs, r.Hash)
		}
		return hs
	}
	alone := hashes()

	var stop atomic.Bool
	stopped := make(chan struct{})
	var mu sim.Mutex
	own := sim.NewChan[int](1)
	var old *sim.Chan[int] // a channel of an execution that is over
	sched.Run(func() { old = sim.NewChan[int](1); old.Len() }, explore.RandomWalk(0), simtest.Options())
	go func() {
		defer close(stopped)
		for !stop.Load() {
			mu.Lock()
			own.Send(1)
			own.Recv()
			old.Send(1)
			old.Recv()
			mu.Unlock()
		}
	}()
	with := hashes()
	stop.Store(true)
	<-stopped
	for i := range alone {
		if alone[i] != with[i] {
			t.Fatalf("seed %d: event hash %#x alone, %#x with a goroutine outside", i, alone[i], with[i])
		}
	}
}

// A receive that the plain channel completes at once, from a channel
// closed in plain mode before the execution (which sees it closed too), is
// no use of the execution's side: not reported.
func TestOutsideReceiveFromAClosedChannelPasses(t *testing.T) {
	o := startOutsider(t)
	closed := sim.NewChan[int](0)
	closed.Close()
	r := sched.Run(func() {
		closed.Recv()
		o.do(func() {
			closed.Recv()
			sim.Select(sim.OnRecv(closed, nil))
		})
	}, explore.RandomWalk(1), simtest.Options())
	if r.Failure != nil {
		t.Fatalf("got %s", r.Failure.Summary())
	}
}
