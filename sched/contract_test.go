package sched_test

import (
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/weftdev/weft/sched"
)

// The controller's contract with its strategies and its verdicts, tested
// with fake strategies and goroutines that call sched directly, without
// sim.

var (
	opWork = sched.NewAccessOp("test.work", sched.ReadWrite)
	opWait = sched.NewAccessOp("test.wait", sched.Read)
	opSet  = sched.NewAccessOp("test.set", sched.Write)
	opGo   = sched.NewOp("test.go")
)

// scripted is a fake strategy: it runs the candidate pick chooses and
// records every decision it was asked, as the candidates' lineages.
type scripted struct {
	pick    func(d *sched.Decision) *sched.G
	offered [][]string
	spawned []string
}

func (s *scripted) Spawned(g *sched.G) { s.spawned = append(s.spawned, g.ID()) }

func (s *scripted) Next(d *sched.Decision) *sched.G {
	var ids []string
	for i := range d.Len() {
		ids = append(ids, d.At(i).ID())
	}
	s.offered = append(s.offered, ids)
	return s.pick(d)
}

func (s *scripted) Choose(*sched.G, int) int { return 0 }

// newest runs the most recently created candidate.
func newest(d *sched.Decision) *sched.G { return d.At(d.Len() - 1) }

// flag is an object goroutines wait on until it is set.
type flag struct {
	obj uint32
	set atomic.Bool
}

func (f *flag) Ready() bool { return f.set.Load() }

// A trace lists what the goroutines did, in order. The controller runs
// one goroutine at a time, but the Steps of these tests tell the race
// detector of no synchronization (sim's primitives do): the lock does.
type trace struct {
	mu   sync.Mutex
	seen []string
}

func (tr *trace) add(s string) {
	tr.mu.Lock()
	tr.seen = append(tr.seen, s)
	tr.mu.Unlock()
}

// work performs n events of g on obj, recording each in tr.
func work(g *sched.G, obj uint32, n int, tr *trace) {
	for range n {
		g.Step(opWork, obj, nil)
		tr.add(g.ID())
	}
}

// TestStrategyDecides: the strategy is told of every goroutine, asked
// only where more than one can run, offered them in creation order, and
// what it picks runs.
func TestStrategyDecides(t *testing.T) {
	var tr trace
	s := &scripted{pick: newest}
	r := sched.Run(func() {
		g := sched.Current()
		obj := g.NewObject()
		for range 2 {
			g.Go(opGo, func() { work(sched.Current(), obj, 3, &tr) })
		}
	}, s, sched.Options{})
	if r.Failure != nil {
		t.Fatal(r.Failure.Summary())
	}
	if want := []string{"0", "0.1", "0.2"}; !slices.Equal(s.spawned, want) {
		t.Errorf("spawned %v, want %v", s.spawned, want)
	}
	for _, ids := range s.offered {
		if len(ids) < 2 || !slices.IsSorted(ids) {
			t.Errorf("offered %v: a decision needs two candidates, in creation order", ids)
		}
	}
	// Always the newest: 0.1 runs to its end before the root starts 0.2.
	if want := []string{"0.1", "0.1", "0.1", "0.2", "0.2", "0.2"}; !slices.Equal(tr.seen, want) {
		t.Errorf("ran %v, want %v", tr.seen, want)
	}
}

// TestEnabledness: a goroutine waiting on an object is no candidate until
// a Step on that object makes its Waiter ready: a strategy that always
// runs the newest candidate runs the waiter first, then must leave it
// until the root has set the flag.
func TestEnabledness(t *testing.T) {
	var tr trace
	s := &scripted{pick: newest}
	r := sched.Run(func() {
		g := sched.Current()
		f := &flag{obj: g.NewObject()}
		g.Go(opGo, func() {
			c := sched.Current()
			tr.add("wait")
			c.Step(opWait, f.obj, f)
			tr.add("woke")
		})
		work(g, g.NewObject(), 3, &tr)
		g.Step(opSet, f.obj, nil)
		f.set.Store(true)
		tr.add("set")
		g.Step(opWork, f.obj, nil)
	}, s, sched.Options{})
	if r.Failure != nil {
		t.Fatal(r.Failure.Summary())
	}
	want := []string{"wait", "0", "0", "0", "set", "woke"}
	if !slices.Equal(tr.seen, want) {
		t.Errorf("ran %v, want %v", tr.seen, want)
	}
}

// TestDeadlockVerdict: goroutines that wait on what nothing will change
// are a deadlock, each listed with its operation.
func TestDeadlockVerdict(t *testing.T) {
	r := sched.Run(func() {
		g := sched.Current()
		f := &flag{obj: g.NewObject()}
		g.Go(opGo, func() { sched.Current().Step(opWait, f.obj, f) })
		g.Step(opWait, f.obj, f)
	}, &scripted{pick: newest}, sched.Options{})
	if r.Failure == nil || r.Failure.Kind != sched.Deadlock {
		t.Fatalf("failure %v, want a deadlock", r.Failure)
	}
	var ids []string
	for _, w := range r.Failure.Waiting {
		ids = append(ids, w.Goroutine)
		if w.Op != "test.wait" {
			t.Errorf("goroutine %s waits in %q, want test.wait", w.Goroutine, w.Op)
		}
	}
	if slices.Sort(ids); !slices.Equal(ids, []string{"0", "0.1"}) {
		t.Errorf("waiting %v, want 0 and 0.1", ids)
	}
}

// TestLeakVerdict: a goroutine still waiting when the body returns, on
// what nothing can change any more, is a leak; one that is done is not.
func TestLeakVerdict(t *testing.T) {
	r := sched.Run(func() {
		g := sched.Current()
		f := &flag{obj: g.NewObject()}
		g.Go(opGo, func() { sched.Current().Step(opWait, f.obj, f) })
		g.Go(opGo, func() { sched.Current().Step(opWork, 0, nil) })
	}, &scripted{pick: newest}, sched.Options{})
	if r.Failure == nil || r.Failure.Kind != sched.Leak {
		t.Fatalf("failure %v, want a leak", r.Failure)
	}
	if len(r.Failure.Waiting) != 1 || r.Failure.Waiting[0].Goroutine != "0.1" {
		t.Errorf("leaked %+v, want goroutine 0.1 alone", r.Failure.Waiting)
	}
}
