package explore_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/weftdev/weft/explore"
	"github.com/weftdev/weft/sched"
)

// Minimization's contract, tested with a fake strategy and a body that
// calls sched directly, without sim.

var (
	opRead  = sched.NewAccessOp("test.read", sched.Read)
	opWrite = sched.NewAccessOp("test.write", sched.Write)
	opSpawn = sched.NewOp("test.go")
	opJoin  = sched.NewAccessOp("test.join", sched.Read)
)

// roundRobin is a fake strategy that switches at every decision to the
// next candidate in creation order: as many preemptions as it can make.
type roundRobin struct{}

func (roundRobin) Spawned(*sched.G) {}

func (roundRobin) Next(d *sched.Decision) *sched.G {
	for i := range d.Len() {
		if d.At(i) == d.Current {
			return d.At((i + 1) % d.Len())
		}
	}
	return d.At(0)
}

func (roundRobin) Choose(*sched.G, int) int { return 0 }

type doneFlag struct{ done atomic.Bool }

func (f *doneFlag) Ready() bool { return f.done.Load() }

// lostUpdateDirect increments a counter from two goroutines with a read and a
// write event apart, and fails if an increment was lost: one preemption,
// between the root's read and its write, is all the bug needs.
func lostUpdateDirect() {
	g := sched.Current()
	x, join := g.NewObject(), g.NewObject()
	var n atomic.Int64
	inc := func(c *sched.G) {
		c.Step(opRead, x, nil)
		v := n.Load()
		c.Step(opWrite, x, nil)
		n.Store(v + 1)
	}
	var child doneFlag
	g.Go(opSpawn, func() {
		c := sched.Current()
		inc(c)
		c.Step(opWrite, join, nil)
		child.done.Store(true)
	})
	inc(g)
	g.Step(opJoin, join, &child)
	if n.Load() != 2 {
		panic("lost update")
	}
}

// TestMinimizeToTheFewestPreemptions: a failure found with every
// preemption a strategy could make shrinks to the one the bug needs, and
// still fails the same way.
func TestMinimizeToTheFewestPreemptions(t *testing.T) {
	r := sched.Run(lostUpdateDirect, roundRobin{}, sched.Options{})
	if r.Failure == nil {
		t.Fatal("round robin did not lose the update")
	}
	before := r.Schedule().Preemptions()
	if before < 2 {
		t.Fatalf("round robin made %d preemptions: nothing to minimize", before)
	}
	m := explore.Minimize(lostUpdateDirect, r, explore.MinimizeConfig{MaxRuns: 500})
	if m.Result.Failure == nil || m.Result.Failure.Signature() != r.Failure.Signature() {
		t.Fatalf("minimized to %v, want the same failure as %v", m.Result.Failure, r.Failure)
	}
	if m.Before != before || m.After != 1 {
		t.Errorf("preemptions %d -> %d, want %d -> 1", m.Before, m.After, before)
	}
	// The minimal schedule replays to the same failure.
	again := sched.Run(lostUpdateDirect, explore.Follow(m.Result.Schedule()), sched.Options{})
	if again.Failure == nil || again.Failure.Signature() != r.Failure.Signature() {
		t.Errorf("the minimal schedule replays to %v", again.Failure)
	}
}

// TestFollowFiresNoFarTimer: a clock choice that a schedule holds at an
// event where the only pending timer is far ahead (as minimization or a
// code change can leave it) does not fire that timer: the choice drifts,
// and the goroutine runs on, as no exploring strategy could have done
// otherwise with the default lag.
func TestFollowFiresNoFarTimer(t *testing.T) {
	var pending atomic.Bool
	body := func() {
		g := sched.Current()
		timer := g.NewTimer(500*time.Millisecond, nil)
		g.Step(opWrite, g.NewObject(), nil)
		g.Step(opWrite, g.NewObject(), nil)
		pending.Store(timer.Stop())
	}
	s := sched.Schedule{{Kind: sched.RunChoice, G: "0", N: 2, Next: "clock", Preempt: true}}
	f := explore.Follow(s)
	r := sched.Run(body, f, sched.Options{})
	if r.Failure != nil {
		t.Fatal(r.Failure.Summary())
	}
	if !pending.Load() {
		t.Error("a timer 500ms ahead fired at a clock choice (the lag is 5ms)")
	}
	if len(f.Drift()) == 0 {
		t.Error("the clock choice that could not be made was not reported as drift")
	}
}
