package sim_test

import (
	"testing"
	"time"

	"github.com/weftdev/weft/explore"
	"github.com/weftdev/weft/internal/simtest"
	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
)

// The time limit (sched.Options.TimeLimit, go test's -timeout under weft
// test): a goroutine that waits for good while a ticker goes on firing is
// no deadlock Go sees, and would tick until the budgets were spent (ants'
// TestPoolTuneScaleUp: 37.7 million events of a 500 ms ticker after a lost
// wakeup); past the limit it fails as a timeout, as go test's would.

// ticking starts a goroutine that reads a ticker of period every until
// stop is closed, as ants' ticktock does, and returns stop.
func ticking(every time.Duration) *sim.Chan[struct{}] {
	stop := sim.NewChan[struct{}](0)
	sim.Go(func() {
		tk := sim.NewTicker(every)
		defer tk.Stop()
		for {
			if sim.Select(sim.OnRecv(stop, nil), sim.OnRecv(tk.C, nil)) == 0 {
				return
			}
		}
	})
	return stop
}

// runLimited runs body once under a random walk with the time limit.
func runLimited(body func(), limit time.Duration) *sched.Result {
	opts := simtest.Options()
	opts.TimeLimit = limit
	return sched.Run(body, explore.RandomWalk(1), opts)
}

func TestTimeLimitLostWakeupWithTicker(t *testing.T) {
	r := runLimited(func() {
		ticking(500 * time.Millisecond)
		never := sim.NewChan[int](0)
		never.Recv() // the wakeup that was lost
	}, 10*time.Minute)
	wantFailure(t, r, sched.Timeout, "")
	if r.Elapsed > 10*time.Minute {
		t.Errorf("the clock reached %v, past the limit", r.Elapsed)
	}
	if r.Steps > 1<<16 {
		t.Errorf("%d events to reach the limit, want about 4 a tick", r.Steps)
	}
	ops := map[string]bool{}
	for _, w := range r.Failure.Waiting {
		ops[w.Op] = true
	}
	if len(r.Failure.Waiting) != 2 || !ops["Chan.Recv"] || !ops["Select"] {
		t.Errorf("waiting: %+v, want the receiver and the ticker's select", r.Failure.Waiting)
	}
	if sig := r.Failure.Signature(); sig == "timeout" {
		t.Errorf("signature %q names no site: minimization could not tell timeouts apart", sig)
	}
}

func TestTimeLimitSleepWithin(t *testing.T) {
	// A test that sleeps less than the limit, a ticker firing meanwhile,
	// passes, as it does under go test.
	r := runLimited(func() {
		stop := ticking(time.Second)
		sim.Sleep(9 * time.Minute)
		stop.Close()
	}, 10*time.Minute)
	if r.Failure != nil {
		t.Fatal(r.Failure.Summary())
	}
}

func TestTimeLimitSleepPast(t *testing.T) {
	// One that sleeps past it would time out under go test too.
	r := runLimited(func() { sim.Sleep(11 * time.Minute) }, 10*time.Minute)
	wantFailure(t, r, sched.Timeout, "")
}

func TestTimeLimitZeroIsNone(t *testing.T) {
	r := runLimited(func() { sim.Sleep(24 * time.Hour) }, 0)
	if r.Failure != nil {
		t.Fatal(r.Failure.Summary())
	}
}

// TestTimeLimitWaitsForOutsideSend checks that a goroutine that polls a Go
// channel, which a plain goroutine still feeds, gets its rounds in real
// time before the execution times out while a timer is due past the limit
// (jellydator/ttlcache: Stop's send on the Go stop channel is handed to a
// plain goroutine, and the cache's loop, a select on that channel and an
// hour-long timer, takes it at its next look). Here the plain goroutine
// sends 20 ms later in real time.
func TestTimeLimitWaitsForOutsideSend(t *testing.T) {
	r := runLimited(func() {
		stop := make(chan struct{}) // a Go channel, as weft test leaves one
		done := sim.NewChan[struct{}](0)
		sim.Go(func() {
			tm := sim.NewTimer(time.Hour)
			defer tm.Stop()
			sim.Select(sim.OnRecvGo(stop, nil), sim.OnRecv(tm.C, nil))
			done.Close()
		})
		go func() { // a goroutine weft does not control, late in real time
			time.Sleep(20 * time.Millisecond)
			stop <- struct{}{}
		}()
		done.Recv()
	}, 10*time.Minute)
	if r.Failure != nil {
		t.Fatalf("%s", r.Failure.Summary())
	}
}
