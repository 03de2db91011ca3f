package explore_test

import (
	"strings"
	"testing"

	"github.com/weftdev/weft/explore"
	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
)

// transfer is a small program with locks, channels and choices, and a bug:
// the balance check and the withdrawal are separate critical sections.
func transfer(failed *bool) func() {
	return func() {
		var mu sim.Mutex
		balance := sim.NewVar(100)
		done := sim.NewChan[bool](2)
		withdraw := func(amount int) {
			mu.Lock()
			ok := balance.Load() >= amount
			mu.Unlock()
			if ok {
				mu.Lock()
				balance.Store(balance.Load() - amount)
				mu.Unlock()
			}
			done.Send(ok)
		}
		sim.Go(func() { withdraw(60 + sim.Intn(2)) })
		sim.Go(func() { withdraw(70) })
		done.Recv()
		done.Recv()
		if balance.Load() < 0 {
			*failed = true
		}
	}
}

func run(body func(), s sched.Strategy) *sched.Result {
	return sched.Run(body, s, sched.Options{})
}

func TestSameSeedSameExecution(t *testing.T) {
	var failed bool
	for _, name := range explore.Strategies {
		for seed := range uint64(50) {
			a, _ := explore.New(name, seed, 3, 20)
			b, _ := explore.New(name, seed, 3, 20)
			ra, rb := run(transfer(&failed), a), run(transfer(&failed), b)
			if ra.Hash != rb.Hash || len(ra.Schedule()) != len(rb.Schedule()) {
				t.Fatalf("%s seed %d: hashes %#x and %#x", name, seed, ra.Hash, rb.Hash)
			}
		}
	}
}

func TestReplayReproducesEveryExecution(t *testing.T) {
	var failed bool
	for seed := range uint64(100) {
		r := run(transfer(&failed), explore.RandomWalk(seed))
		rp := explore.Follow(r.Schedule())
		again := run(transfer(&failed), rp)
		if again.Hash != r.Hash || len(rp.Drift()) > 0 {
			t.Fatalf("seed %d: replay hash %#x, original %#x, drift %q", seed, again.Hash, r.Hash, rp.Drift())
		}
	}
}

func TestReplayReportsDrift(t *testing.T) {
	var failed bool
	r := run(transfer(&failed), explore.RandomWalk(7))
	if len(r.Schedule()) == 0 {
		t.Fatal("seed 7 made no choice")
	}
	s := append(sched.Schedule(nil), r.Schedule()...)
	s = append(s, sched.Choice{Kind: sched.RunChoice, G: "0.9", N: 1, Next: "0"})
	rp := explore.Follow(s)
	again := run(transfer(&failed), rp)
	if again.Failure != nil {
		t.Fatalf("drift is not a failure: %s", again.Failure.Summary())
	}
	drift := strings.Join(rp.Drift(), "\n")
	if !strings.Contains(drift, "goroutine 0.9 event 1") || !strings.Contains(drift, "never reached") {
		t.Fatalf("drift: %q", drift)
	}
}

func TestMinimizeKeepsTheFailure(t *testing.T) {
	body := func() {
		var failed bool
		transfer(&failed)()
		if failed {
			panic("overdrawn")
		}
	}
	for seed := range uint64(30) {
		r := run(body, explore.RandomWalk(seed))
		if r.Failure == nil {
			continue
		}
		m := explore.Minimize(body, r, explore.MinimizeConfig{})
		if m.Result.Failure.Signature() != r.Failure.Signature() || m.After > m.Before {
			t.Fatalf("seed %d: minimized to %s with %d preemptions from %d", seed, m.Result.Failure.Summary(), m.After, m.Before)
		}
		if m.After != 1 {
			t.Errorf("seed %d: %d preemptions after minimization, want 1", seed, m.After)
		}
		if _, err := explore.Verify(body, m.Result.Schedule(), m.Result, 3, sched.Options{}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestUnknownStrategy(t *testing.T) {
	if _, err := explore.New("dfs", 1, 3, 10); err == nil || !strings.Contains(err.Error(), `"dfs"`) {
		t.Fatalf("err = %v", err)
	}
	if _, err := explore.Run(func() {}, explore.Config{}); err == nil {
		t.Fatal("no error without a budget")
	}
}
