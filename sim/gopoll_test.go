package sim_test

import (
	"testing"
	"time"

	"github.com/weftdev/weft/explore"
	"github.com/weftdev/weft/internal/simtest"
	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
)

// goPoolBody is ants' PoolWithFunc reduced: n workers, each ranging over a
// Go channel of its own (one weft does not control, as ants' chan any
// stays Go's), and tasks handed to them in turn.
func goPoolBody(n, tasks int) func() {
	return func() {
		var workers, work sim.WaitGroup
		chans := make([]chan int, n)
		for i := range chans {
			ch := make(chan int, 1)
			chans[i] = ch
			workers.Go(func() {
				for {
					v, ok := sim.RecvOKGo(ch)
					if !ok || v < 0 {
						return
					}
					sim.Sleep(time.Millisecond)
					work.Done()
				}
			})
		}
		work.Add(tasks)
		for i := range tasks {
			sim.SendGo(chans[i%n], i)
		}
		work.Wait()
		for _, ch := range chans {
			sim.SendGo(ch, -1)
		}
		workers.Wait()
	}
}

// TestControlledGoChanPollersScale checks that a task handed to one of
// many workers polling Go channels costs the same with ten idle workers or
// a thousand: a poller of Go channels alone waits for one of its channels
// to change (sched/gopoll.go), rather than look again at every change of
// the execution. Waking them all made ants' TestRestCodeCoverage, 600,000
// tasks on pools of 10,000 workers, a runaway of 37 million events.
func TestControlledGoChanPollersScale(t *testing.T) {
	perTask := func(n int) float64 { return eventsPer(t, goPoolBody(n, 4*n), 4*n) }
	few, many := perTask(10), perTask(1000)
	t.Logf("events per task: %.1f with 10 workers, %.1f with 1,000", few, many)
	if many > 2*few {
		t.Errorf("%.1f events per task with 1,000 workers polling Go channels, %.1f with 10: pollers cost more the more they are", many, few)
	}
}

// TestControlledGoChanPollers explores a small pool on Go channels: every
// task is done and every worker ends, whatever the order.
func TestControlledGoChanPollers(t *testing.T) {
	exploreAll(t, func(c *checker) {
		goPoolBody(3, 7)()
	})
}

// TestControlledGoChanFedOutsideWhileTicking: a goroutine outside the
// execution feeds the Go channel a poller waits on while a ticker's loop
// never lets the execution stall: the poller looks again as the clock
// moves (goLookEvery), rather than wait for a stall that never comes.
func TestControlledGoChanFedOutsideWhileTicking(t *testing.T) {
	raw := make(chan int)
	go func() { // started before the execution, so as not to be one of its goroutines
		time.Sleep(time.Millisecond) // real time: outside the execution
		raw <- 1
	}()
	r := runOnce(func() {
		stop := sim.NewChan[struct{}](0)
		var wg sim.WaitGroup
		wg.Go(func() {
			tick := sim.NewTicker(10 * time.Millisecond)
			defer tick.Stop()
			for {
				if sim.Select(sim.OnRecv(stop, nil), sim.OnRecv(tick.C, nil)) == 0 {
					return
				}
			}
		})
		if v := sim.RecvGo(raw); v != 1 {
			panic("the Go channel's value was lost")
		}
		stop.Send(struct{}{})
		wg.Wait()
	})
	if r.Failure != nil {
		t.Fatalf("failure: %s", r.Failure.Summary())
	}
}

// TestControlledInsidePollerBesideGoPoller: a goroutine that loops on a
// select whose default case it takes at each turn, beside a receiver that
// polls a Go channel, gets its stall rounds without waiting in real time
// for the world outside, as it would alone, even right after a send on a
// Go channel of its own (Workiva/go-datastructures' dtrie iterator: each
// of its stall rounds waited a millisecond or more, and the rounds it
// took without a change added up to the block timeout).
func TestControlledInsidePollerBesideGoPoller(t *testing.T) {
	opts := simtest.Options()
	opts.BlockTimeout = 50 * time.Millisecond
	r := sched.Run(func() {
		out := make(chan int)
		stop := sim.NewChan[struct{}](0)
		sim.Go(func() {
			sim.SendGo(out, 0)
			for range 300 {
				sim.Select(sim.OnRecv(stop, nil), sim.OnDefault(nil))
			}
			sim.SendGo(out, 1)
		})
		sim.RecvGo(out)
		sim.RecvGo(out)
	}, explore.RandomWalk(1), opts)
	if r.Failure != nil {
		t.Fatalf("failure: %s", r.Failure.Summary())
	}
}

// TestControlledGoPollerAfterReturn: a goroutine left polling a Go
// channel that nothing feeds when the test returns is reported as blocked,
// and as a likely leak (eapache/channels' tests leave their buffers' loops
// so, as goleak shows under go test).
func TestControlledGoPollerAfterReturn(t *testing.T) {
	opts := simtest.Options()
	// Longer than a stall's wait for visits (up to 500 ms, when other
	// tests of the process left goroutines outside), which the watchdog
	// would report as blocked first.
	opts.BlockTimeout = time.Second
	r := sched.Run(func() {
		in := make(chan int)
		sim.Go(func() { sim.RecvGo(in) })
	}, explore.RandomWalk(1), opts)
	wantFailure(t, r, sched.Blocked, "the test returned, and goroutine 0.1 polled outside weft's control (in Yield) for 1s while nothing else could run: a leak, unless a goroutine weft does not control changes what it polls later")
}
