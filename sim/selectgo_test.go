package sim_test

import (
	"testing"
	"time"

	"github.com/weftdev/weft/explore"
	"github.com/weftdev/weft/internal/simtest"
	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
)

// Cases on Go channels (see selectgo.go): a select of weft test that mixes
// weft's channels with channels of code weft does not instrument.

// TestPlainSelectGo: outside an execution, Go cases are ordinary select
// cases, which block until ready.
func TestPlainSelectGo(t *testing.T) {
	raw := make(chan int)
	go func() { raw <- 3 }()
	weft := sim.NewChan[int](0)
	got, ok := 0, false
	i := sim.Select(sim.OnRecv(weft, nil), sim.OnRecvOKGo(raw, func(v int, k bool) { got, ok = v, k }))
	if i != 1 || got != 3 || !ok {
		t.Fatalf("Select = %d, received %d, %v", i, got, ok)
	}
	out := make(chan string, 1)
	sent := false
	if i := sim.Select(sim.OnSendGo(out, "x", func() { sent = true }), sim.OnRecv(weft, nil)); i != 0 || !sent || <-out != "x" {
		t.Fatalf("Select = %d, sent %v", i, sent)
	}
	var nilch chan int
	if i := sim.Select(sim.OnRecvGo(nilch, nil), sim.OnDefault(nil)); i != 1 {
		t.Fatalf("a nil Go channel was ready: case %d", i)
	}
}

// TestControlledSelectGoFedInside: under control, a select waits on a Go
// channel that a controlled goroutine feeds after sleeping in virtual
// time: the select polls it while the clock moves on.
func TestControlledSelectGoFedInside(t *testing.T) {
	exploreAll(t, func(c *checker) {
		raw := make(chan int, 1)
		weft := sim.NewChan[int](0)
		sim.Go(func() {
			sim.Sleep(time.Second)
			raw <- 5
		})
		got := 0
		i := sim.Select(sim.OnRecv(weft, nil), sim.OnRecvGo(raw, func(v int) { got = v }))
		c.Equal("case", i, 1)
		c.Equal("value", got, 5)
	})
}

// TestControlledSelectGoWeftFirst: a weft case that becomes ready wins
// while the Go channel never does.
func TestControlledSelectGoWeftFirst(t *testing.T) {
	exploreAll(t, func(c *checker) {
		raw := make(chan int)
		weft := sim.NewChan[int](0)
		sim.Go(func() { weft.Send(8) })
		got := 0
		i := sim.Select(sim.OnRecvGo(raw, nil), sim.OnRecv(weft, func(v int) { got = v }))
		c.Equal("case", i, 1)
		c.Equal("value", got, 8)
	})
}

// TestControlledSelectGoFedOutside: a goroutine weft does not control
// feeds the Go channel in real time: the controller waits for it.
func TestControlledSelectGoFedOutside(t *testing.T) {
	r := runOnce(func() {
		raw := make(chan int)
		go func() {
			time.Sleep(10 * time.Millisecond)
			raw <- 1
		}()
		if i := sim.Select(sim.OnRecv(sim.NewChan[int](0), nil), sim.OnRecvGo(raw, nil)); i != 1 {
			panic("the Go channel was not taken")
		}
	})
	if r.Failure != nil {
		t.Fatalf("failure: %s", r.Failure.Summary())
	}
}

// TestControlledSelectGoNeverReady: a select on a Go channel that nothing
// feeds does not run forever: it fails as blocked.
func TestControlledSelectGoNeverReady(t *testing.T) {
	opts := simtest.Options()
	opts.BlockTimeout = 50 * time.Millisecond
	r := sched.Run(func() {
		sim.Select(sim.OnRecv(sim.NewChan[int](0), nil), sim.OnRecvGo(make(chan int), nil))
	}, explore.RandomWalk(1), opts)
	if r.Failure == nil || r.Failure.Kind != sched.Blocked {
		t.Fatalf("failure %v, want blocked", r.Failure)
	}
}

// TestControlledOpsOnGoChannels: receives and sends on Go channels outside
// a select (weft test's rewrite of a channel it leaves Go's) wait for a
// controlled goroutine that is yet to run: an unbuffered handoff, a close
// seen by a receive with ok, and the plain operations outside executions.
func TestControlledOpsOnGoChannels(t *testing.T) {
	exploreAll(t, func(c *checker) {
		raw := make(chan int)
		done := make(chan struct{})
		sim.Go(func() {
			sim.SendGo(raw, 7)
			close(done)
		})
		if v := sim.RecvGo(raw); v != 7 {
			c.Errorf("RecvGo = %d, want 7", v)
		}
		if _, ok := sim.RecvOKGo(done); ok {
			c.Errorf("RecvOKGo of a closed channel reported a send")
		}
	})
	raw := make(chan string, 1)
	sim.SendGo(raw, "plain")
	if v, ok := sim.RecvOKGo(raw); v != "plain" || !ok {
		t.Fatalf("RecvOKGo outside an execution = %q, %v", v, ok)
	}
}

// TestControlledSelectsMeetOnGoChannel: two selects on the two ends of an
// unbuffered Go channel, each with a weft case that never proceeds, meet:
// the sender's case is offered by a plain goroutine while it polls.
// Reduced from gocron's Jobs, whose reply channel weft leaves Go's, and its
// scheduler loop (3 tests blocked, each end polling the other).
func TestControlledSelectsMeetOnGoChannel(t *testing.T) {
	exploreAll(t, func(c *checker) {
		reply := make(chan []int)
		stop := sim.NewChan[struct{}](0)
		sim.Go(func() {
			i := sim.Select(sim.OnRecv(stop, nil), sim.OnSendGo(reply, []int{1, 2}, nil))
			c.Equal("sender's case", i, 1)
		})
		var got []int
		i := sim.Select(sim.OnRecv(stop, nil), sim.OnRecvGo(reply, func(v []int) { got = v }))
		c.Equal("receiver's case", i, 1)
		c.Equal("values received", len(got), 2)
	})
}

// TestControlledSendGoIsAChange: a send on a Go channel is a change, not a
// poll, though it goes through a select that found none of weft's channels
// ready. ants' ReleaseTimeout hands each of its workers a nil on a channel
// that weft leaves Go's, then gives them a second and a half to exit: with
// the sends taken for polls, the sender went stale after two, and the
// clock ran to the timeout before anyone could run.
func TestControlledSendGoIsAChange(t *testing.T) {
	exploreAll(t, func(c *checker) {
		const workers = 4
		var exited sim.WaitGroup
		raws := make([]chan int, workers)
		for i := range raws {
			raws[i] = make(chan int, 1)
			exited.Go(func() { sim.RecvGo(raws[i]) })
		}
		timeout := sim.NewTimer(1500 * time.Millisecond)
		for _, raw := range raws {
			sim.SendGo(raw, 1)
		}
		done := sim.NewChan[struct{}](0)
		sim.Go(func() {
			exited.Wait()
			done.Close()
		})
		if sim.Select(sim.OnRecv(done, nil), sim.OnRecv(timeout.C, nil)) == 1 {
			c.Errorf("the timeout fired while the workers could take their values")
		}
	})
}

// TestControlledSendGoStream: a controlled goroutine streams values to
// another on an unbuffered Go channel (Workiva/go-datastructures' dtrie
// iterator, whose channel weft leaves Go's): the receiver takes each
// handed-off value under the baton, and the sender knows at once, so no
// value waits for a stall round, each of which moves the clock. Left to
// the plain goroutine that blocks in the send, each value cost the two
// pollers stall rounds of real time, and the 10,000 entries of dtrie's
// TestIterate minutes.
func TestControlledSendGoStream(t *testing.T) {
	const n = 200
	exploreAll(t, func(c *checker) {
		out := make(chan int)
		sim.Go(func() {
			for i := range n {
				sim.SendGo(out, i)
			}
			sim.CloseGo(out)
		})
		start := sim.Now()
		want := 0
		for v, ok := sim.RecvOKGo(out); ok; v, ok = sim.RecvOKGo(out) {
			c.Equal("value", v, want)
			want++
		}
		c.Equal("values received", want, n)
		// A stall round moves the clock by a microsecond or more; n
		// values of a handful of events each take a few nanoseconds.
		if d := sim.Since(start); d >= n*time.Microsecond/2 {
			c.Errorf("%d values took %v of virtual time: they waited for stall rounds", n, d)
		}
	})
}

// TestControlledSendGoTakenOutside: a value handed off to a plain
// goroutine still reaches a receiver weft does not control, in real time.
func TestControlledSendGoTakenOutside(t *testing.T) {
	raw := make(chan int)
	got := make(chan int, 1)
	go func() { got <- <-raw }()
	r := runOnce(func() { sim.SendGo(raw, 4) })
	if r.Failure != nil {
		t.Fatalf("failure: %s", r.Failure.Summary())
	}
	if v := <-got; v != 4 {
		t.Fatalf("the receiver outside got %d, want 4", v)
	}
}
