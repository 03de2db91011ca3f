package explore_test

import (
	"testing"
	"time"

	"github.com/weftdev/weft/corpus"
	"github.com/weftdev/weft/explore"
	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
)

// Bugs that need time to pass while goroutines can still run: a timer that
// fires, or a sleep that ends, before the work is done. Under a model where
// time moved only when every goroutine was blocked, none of them could
// happen. Each is found, minimized, saved and replayed.

// findAndReplay explores body until it fails with kind, minimizes the
// schedule, saves it as a corpus entry and replays the parsed entry: the
// replay must fail the same way, with the same events.
func findAndReplay(t *testing.T, body func(), kind sched.FailureKind) *sched.Result {
	t.Helper()
	sum, err := explore.Run(body, explore.Config{Seed: 1, Iterations: 5000, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Finding == nil {
		t.Fatalf("no failure in %d executions", sum.Executions)
	}
	found := sum.Finding.Result
	if found.Failure.Kind != kind {
		t.Fatalf("found %s, want a %v", found.Failure.Summary(), kind)
	}
	m := explore.Minimize(body, found, explore.MinimizeConfig{})
	e := &corpus.Entry{Test: t.Name(), Failure: m.Result.Failure.Summary(), Schedule: m.Result.Schedule()}
	parsed, err := corpus.Parse("entry", e.Marshal())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := explore.Verify(body, parsed.Schedule, m.Result, 3, sched.Options{}); err != nil {
		t.Fatalf("the saved schedule does not replay: %v\n%s", err, e.Marshal())
	}
	t.Logf("found in execution %d: %s; minimized to %d preemptions:\n%s", sum.Finding.Iteration+1, m.Result.Failure.Summary(), m.After, e.Marshal())
	return m.Result
}

// hasClockChoice reports whether a schedule fires a timer before it was due.
func hasClockChoice(s sched.Schedule) bool {
	for _, c := range s {
		if c.Next == sched.Clock.ID() {
			return true
		}
	}
	return false
}

// A timeout that fires while the work still runs: the worker's result
// channel is unbuffered, so when the timeout wins the worker blocks
// forever (the classic leak of a select on a result and time.After).
func TestTimeoutFiresWhileWorkRuns(t *testing.T) {
	body := func() {
		result := sim.NewChan[int](0)
		sim.Go(func() {
			var sum sim.Var[int]
			for i := range 4 {
				sum.Store(sum.Load() + i)
			}
			result.Send(sum.Load())
		})
		sim.Select(
			sim.OnRecv(result, nil),
			sim.OnRecv(sim.After(time.Millisecond), nil),
		)
	}
	r := findAndReplay(t, body, sched.Leak)
	if !hasClockChoice(r.Schedule()) {
		t.Errorf("the timeout fired without a clock choice:\n%v", r.Schedule())
	}
}

// A ticker-driven goroutine racing Stop: the owner stops the ticker and
// closes the output, assuming no tick is being handled; a tick that fired
// before Stop is still on its way to the output.
func TestTickerRacesStop(t *testing.T) {
	body := func() {
		out := sim.NewChan[int](10)
		quit := sim.NewChan[struct{}](0)
		tk := sim.NewTicker(time.Millisecond)
		var wg sim.WaitGroup
		wg.Go(func() {
			for {
				switch sim.Select(sim.OnRecv(tk.C, nil), sim.OnRecv(quit, nil)) {
				case 0:
					out.Send(1) // panics if out was closed meanwhile
				case 1:
					return
				}
			}
		})
		var setup sim.Var[int]
		for i := range 3 {
			setup.Store(i)
		}
		tk.Stop()
		out.Close()
		quit.Close()
		wg.Wait()
	}
	r := findAndReplay(t, body, sched.Panic)
	if r.Failure.Message != "send on closed channel" {
		t.Errorf("failure %s", r.Failure.Summary())
	}
}

// A Sleep that ends before a busy goroutine finishes: the test sleeps to
// let the work be done, as many a flaky test does.
func TestSleepEndsBeforeBusyGoroutine(t *testing.T) {
	body := func() {
		var done sim.Bool
		var n sim.Int64
		sim.Go(func() {
			for range 5 {
				n.Add(1)
			}
			done.Store(true)
		})
		sim.Sleep(time.Millisecond)
		if !done.Load() {
			panic("the work was not done after the sleep")
		}
	}
	r := findAndReplay(t, body, sched.Panic)
	if !hasClockChoice(r.Schedule()) {
		t.Errorf("the sleep ended without a clock choice:\n%v", r.Schedule())
	}
}

// With no lag, the same programs never fire a timer before it is due: the
// work always finishes first, even if it yields between its steps.
func TestNoLagWorkFirst(t *testing.T) {
	body := func() {
		var done sim.Bool
		var n sim.Int64
		sim.Go(func() {
			for range 5 {
				n.Add(1)
				sim.Yield()
			}
			done.Store(true)
		})
		sim.Sleep(time.Millisecond)
		if !done.Load() {
			panic("the work was not done after the sleep")
		}
	}
	sum, err := explore.Run(body, explore.Config{Seed: 1, Iterations: 500, Workers: 1, Lag: -1})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Finding != nil {
		t.Fatalf("with no lag: %s", sum.Finding.Result.Failure.Summary())
	}
}

// A livelock is a runaway whatever the schedule: its minimization takes a
// few replays, and ends with no preemption.
func TestRunawayMinimizes(t *testing.T) {
	body := func() {
		var x sim.Int64
		sim.Go(func() {
			for {
				x.Add(1)
			}
		})
		for x.Load() >= 0 {
			x.Add(1)
		}
	}
	opts := sched.Options{MaxSteps: 1 << 14}
	sum, err := explore.Run(body, explore.Config{Seed: 1, Iterations: 1, Workers: 1, Options: opts})
	if err != nil || sum.Finding == nil || sum.Finding.Result.Failure.Kind != sched.Runaway {
		t.Fatalf("err %v, finding %+v", err, sum.Finding)
	}
	m := explore.Minimize(body, sum.Finding.Result, explore.MinimizeConfig{Options: opts})
	if m.Result.Failure.Kind != sched.Runaway || m.After != 0 {
		t.Errorf("minimized to %s with %d preemptions in %d replays", m.Result.Failure.Summary(), m.After, m.Runs)
	}
	traced := opts
	traced.Trace = true
	r := sched.Run(body, explore.Follow(m.Result.Schedule()), traced)
	if len(r.Trace) == 0 || len(r.Trace) > sched.MaxTrace || r.Trace[len(r.Trace)-1].Op != "atomic.Add" {
		t.Errorf("trace of %d events, the last %+v", len(r.Trace), r.Trace[len(r.Trace)-1])
	}
}

// A failure past the budget of explored events (a leak at the end of a
// long stress test) minimizes as any other: its replays run on unexplored
// as it did, rather than each ending as a runaway at the budget.
func TestOverrunFailureMinimizes(t *testing.T) {
	body := func() {
		var n sim.Int64
		var wg sim.WaitGroup
		for range 2 {
			wg.Go(func() {
				for range 3000 {
					n.Add(1)
				}
			})
		}
		wg.Wait()
		if n.Load() == 6000 {
			panic("the end of a long test")
		}
	}
	opts := sched.Options{MaxSteps: 2000}
	sum, err := explore.Run(body, explore.Config{Seed: 1, Iterations: 1, Workers: 1, Strategy: "random", Options: opts})
	if err != nil || sum.Finding == nil || !sum.Finding.Result.Overran {
		t.Fatalf("err %v, finding %+v", err, sum.Finding)
	}
	found := sum.Finding.Result
	m := explore.Minimize(body, found, explore.MinimizeConfig{Options: opts})
	if m.Result.Failure.Signature() != found.Failure.Signature() || m.Before < 100 || m.After != 0 {
		t.Errorf("%s minimized to %s, %d preemptions from %d, in %d replays",
			found.Failure.Summary(), m.Result.Failure.Summary(), m.After, m.Before, m.Runs)
	}
	if !m.Result.Overran {
		t.Error("the minimized execution did not run past the budget: its replays had another")
	}
	if _, err := explore.Verify(body, m.Result.Schedule(), m.Result, 3, opts); err != nil {
		t.Errorf("the minimized schedule, replayed with the test's options: %v", err)
	}
}

// Every execution of a program of timers, sleeps and tickers replays from
// its schedule alone, clock choices included, through the corpus format.
func TestClockChoicesReplay(t *testing.T) {
	body := func() {
		var wg sim.WaitGroup
		results := sim.NewChan[int](3)
		for i := range 3 {
			wg.Go(func() {
				sim.Sleep(time.Duration(i+1) * time.Millisecond)
				results.Send(i)
			})
		}
		tk := sim.NewTicker(time.Millisecond)
		deadline := sim.After(2 * time.Millisecond)
		for n := 0; n < 3; {
			switch sim.Select(sim.OnRecv(results, nil), sim.OnRecv(tk.C, nil), sim.OnRecv(deadline, nil)) {
			case 0:
				n++
			case 2:
				n = 3
			}
		}
		tk.Stop()
		wg.Wait()
	}
	clocks := 0
	for _, name := range explore.Strategies {
		for seed := range uint64(100) {
			s, _ := explore.New(name, seed, 3, 50, explore.WithLag(5*time.Millisecond))
			r := sched.Run(body, s, sched.Options{})
			if r.Failure != nil {
				t.Fatalf("%s seed %d: %s", name, seed, r.Failure.Summary())
			}
			if hasClockChoice(r.Schedule()) {
				clocks++
			}
			e := &corpus.Entry{Test: "T", Schedule: r.Schedule()}
			parsed, err := corpus.Parse("entry", e.Marshal())
			if err != nil {
				t.Fatal(err)
			}
			rp := explore.Follow(parsed.Schedule)
			again := sched.Run(body, rp, sched.Options{})
			if again.Hash != r.Hash || len(rp.Drift()) > 0 {
				t.Fatalf("%s seed %d: replay hash %#x, original %#x, drift %q\n%s", name, seed, again.Hash, r.Hash, rp.Drift(), e.Marshal())
			}
		}
	}
	if clocks == 0 {
		t.Error("no execution fired a timer early or late")
	}
}
