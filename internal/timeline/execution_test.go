package timeline_test

import (
	"strings"
	"testing"

	"github.com/weftdev/weft/explore"
	"github.com/weftdev/weft/internal/timeline"
	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
)

// traced runs body once along the default policy (and the choices of s),
// with the trace on.
func traced(t *testing.T, body func(), s sched.Schedule) *sched.Result {
	t.Helper()
	return explore.Execute(body, explore.Follow(s), sched.Options{Trace: true})
}

// lockHandoff: the test's goroutine holds a lock while the goroutine it
// started waits for it, then releases it and waits for that goroutine.
func lockHandoff() {
	var m sim.Mutex
	var wg sim.WaitGroup
	m.Lock()
	wg.Add(1)
	sim.Go(func() {
		m.Lock()
		m.Unlock()
		wg.Done()
	})
	sim.Yield()
	m.Unlock()
	wg.Wait()
}

// find returns the index of the first box of lane name with operation op.
func find(t *testing.T, tl *timeline.Timeline, lane, op string) int {
	t.Helper()
	for i, b := range tl.Boxes {
		if tl.Lanes[b.Lane].Name == lane && b.Op == op {
			return i
		}
	}
	t.Fatalf("no %s event of goroutine %s in %+v", op, lane, tl.Boxes)
	return -1
}

func hasLink(tl *timeline.Timeline, kind string, from, to int) bool {
	for _, k := range tl.Links {
		if k.Kind == kind && k.From == from && k.To == to {
			return true
		}
	}
	return false
}

func TestLockHandoff(t *testing.T) {
	r := traced(t, lockHandoff, nil)
	if r.Failure != nil {
		t.Fatal(r.Failure.Summary())
	}
	tl := timeline.FromResult(r, "TestLockHandoff")
	if len(tl.Lanes) != 2 || tl.Lanes[0].Name != "0" || tl.Lanes[1].Name != "0.1" {
		t.Fatalf("lanes %+v, want 0 and 0.1", tl.Lanes)
	}
	if tl.Steps != len(r.Trace) || len(tl.Boxes) != len(r.Trace) {
		t.Errorf("%d steps and %d boxes for %d events", tl.Steps, len(tl.Boxes), len(r.Trace))
	}
	for i, b := range tl.Boxes {
		if b.At != i || b.Time != r.Trace[i].At || b.Op != r.Trace[i].Op || b.Site != r.Trace[i].Site {
			t.Errorf("box %d is %+v for event %+v", i, b, r.Trace[i])
		}
		if !strings.HasPrefix(b.Site, "execution_test.go:") && b.Op != "go" {
			t.Errorf("box %d: site %q is not the test's", i, b.Site)
		}
	}
	unlock := find(t, tl, "0", "Mutex.Unlock")
	lock := find(t, tl, "0.1", "Mutex.Lock")
	if !hasLink(tl, "lock", unlock, lock) {
		t.Errorf("no link from the unlock of 0 to the lock of 0.1: %+v", tl.Links)
	}
	if !hasLink(tl, "go", find(t, tl, "0", "go"), lock) {
		t.Errorf("no link from the go statement to 0.1's first event: %+v", tl.Links)
	}
	if !hasLink(tl, "wait", find(t, tl, "0.1", "WaitGroup.Done"), find(t, tl, "0", "WaitGroup.Wait")) {
		t.Errorf("no link from Done to Wait: %+v", tl.Links)
	}
	// 0.1 waited for the lock from its Lock event until the event before
	// its next one.
	var blocked *timeline.Span
	for i, s := range tl.Spans {
		if s.Lane == 1 && s.Kind == timeline.Blocked && s.From == lock+1 {
			blocked = &tl.Spans[i]
		}
	}
	if blocked == nil {
		t.Fatalf("no blocked span of 0.1 after its Lock: %+v", tl.Spans)
	}
	if blocked.To <= unlock || blocked.FromTime >= blocked.ToTime {
		t.Errorf("0.1 blocked over %+v, but the unlock is event %d", *blocked, unlock)
	}
	for _, k := range tl.Links {
		from, to := tl.Boxes[k.From], tl.Boxes[k.To]
		if from.Lane == to.Lane || k.At < to.At || from.At > k.At {
			t.Errorf("link %+v joins %+v and %+v", k, from, to)
		}
	}
}

// channels: an unbuffered channel between two goroutines, and a buffered
// one back.
func channels() {
	ping, pong := sim.NewChan[int](0), sim.NewChan[int](2)
	sim.Go(func() {
		for range 2 {
			pong.Send(ping.Recv() + 1)
		}
	})
	ping.Send(1)
	ping.Send(2)
	pong.Recv()
	pong.Recv()
}

func TestChannelLinks(t *testing.T) {
	r := traced(t, channels, nil)
	if r.Failure != nil {
		t.Fatal(r.Failure.Summary())
	}
	tl := timeline.FromResult(r, "TestChannelLinks")
	var sends, recvs int
	for _, k := range tl.Links {
		if k.Kind != "chan" {
			continue
		}
		from, to := tl.Boxes[k.From], tl.Boxes[k.To]
		if from.Op != "Chan.Send" || to.Op != "Chan.Recv" || from.Lane == to.Lane {
			t.Errorf("channel link from %+v to %+v", from, to)
		}
		if from.Lane == 0 {
			sends++
		} else {
			recvs++
		}
	}
	if sends != 2 || recvs != 2 {
		t.Errorf("%d links from 0 to 0.1 and %d back, want 2 and 2: %+v", sends, recvs, tl.Links)
	}
}

// A preemption of the schedule is marked on the box where it happened, and
// the goroutine is shaded ready until it runs again.
func TestPreemptionAndFailure(t *testing.T) {
	f := findFailure(t, lostUpdate)
	tl := timeline.FromResult(f, "lost update", "found by a test")
	if !strings.HasPrefix(tl.Notes[0], "failure: panic") || tl.Notes[1] != "found by a test" {
		t.Errorf("notes %q", tl.Notes)
	}
	preempted, failed := 0, 0
	for _, b := range tl.Boxes {
		switch b.Kind {
		case timeline.Preempted:
			preempted++
			if !strings.Contains(b.Note, "ran instead") {
				t.Errorf("preempted box's note %q", b.Note)
			}
		case timeline.Failure:
			failed++
			if tl.Lanes[b.Lane].Name != f.Failure.Goroutine {
				t.Errorf("the failure is marked on %s, not %s", tl.Lanes[b.Lane].Name, f.Failure.Goroutine)
			}
		}
	}
	if preempted != f.Schedule().Preemptions() || preempted == 0 || failed != 1 {
		t.Errorf("%d preempted boxes for %d preemptions, %d failures marked", preempted, f.Schedule().Preemptions(), failed)
	}
	ready := 0
	for _, s := range tl.Spans {
		if s.Kind == timeline.Ready {
			ready++
		}
	}
	if ready != preempted {
		t.Errorf("%d ready spans for %d preemptions", ready, preempted)
	}
	// The Wait of the test's goroutine was released by the last Done.
	wait := find(t, tl, "0", "WaitGroup.Wait")
	var done []int
	for i, b := range tl.Boxes {
		if b.Op == "WaitGroup.Done" {
			done = append(done, i)
		}
	}
	if len(done) != 2 || !hasLink(tl, "wait", done[1], wait) {
		t.Errorf("no link from the last Done (of %v) to the Wait %d: %+v", done, wait, tl.Links)
	}
}

// lostUpdate panics when two goroutines' increments interleave.
func lostUpdate() {
	var n sim.Var[int]
	var wg sim.WaitGroup
	for range 2 {
		wg.Go(func() { n.Store(n.Load() + 1) })
	}
	wg.Wait()
	if n.Load() != 2 {
		panic("lost update")
	}
}

// findFailure explores body until it fails and returns the failing
// execution, traced.
func findFailure(t *testing.T, body func()) *sched.Result {
	t.Helper()
	var found *explore.Finding
	_, err := explore.Run(body, explore.Config{Strategy: explore.StrategyRandom, Seed: 1, Iterations: 1000,
		Accept: func(f *explore.Finding) bool { found = f; return true }})
	if err != nil || found == nil {
		t.Fatalf("no failure found (%v)", err)
	}
	r := traced(t, body, found.Result.Schedule())
	if r.Failure == nil {
		t.Fatal("the failing schedule does not fail again")
	}
	return r
}

// A deadlock marks every goroutine stuck, shaded blocked to the end.
func TestDeadlock(t *testing.T) {
	r := traced(t, func() {
		var a, b sim.Mutex
		done := sim.NewChan[bool](0)
		a.Lock()
		sim.Go(func() {
			b.Lock()
			a.Lock()
			done.Send(true)
		})
		sim.Yield()
		b.Lock()
		done.Recv()
	}, nil)
	if r.Failure == nil || r.Failure.Kind != sched.Deadlock {
		t.Fatalf("failure %s, want a deadlock", r.Failure.Summary())
	}
	tl := timeline.FromResult(r, "deadlock")
	stuck := map[string]bool{}
	for _, s := range tl.Spans {
		if s.Kind == timeline.Blocked && s.To == tl.Steps {
			stuck[tl.Lanes[s.Lane].Name] = true
		}
	}
	failed := map[string]bool{}
	for _, b := range tl.Boxes {
		if b.Kind == timeline.Failure {
			failed[tl.Lanes[b.Lane].Name] = true
		}
	}
	for _, g := range []string{"0", "0.1"} {
		if !stuck[g] || !failed[g] || !strings.HasPrefix(tl.Lanes[laneOf(tl, g)].Note, "stuck in Mutex.Lock") {
			t.Errorf("goroutine %s: stuck span %v, failure box %v, note %q", g, stuck[g], failed[g], tl.Lanes[laneOf(tl, g)].Note)
		}
	}
}

func laneOf(tl *timeline.Timeline, name string) int {
	for i, l := range tl.Lanes {
		if l.Name == name {
			return i
		}
	}
	return -1
}

// With many goroutines, those that play no part in a preemption, the
// failure or a link with one that does are idle.
func TestIdleLanes(t *testing.T) {
	r := traced(t, manyGoroutines, nil)
	tl := timeline.FromResult(r, "many")
	if len(tl.Lanes) != 51 {
		t.Fatalf("%d lanes, want 51", len(tl.Lanes))
	}
	idle := 0
	for _, l := range tl.Lanes {
		if l.Idle {
			idle++
		}
	}
	if tl.Lanes[0].Idle || idle < 40 {
		t.Errorf("%d idle lanes of 51 (the root idle: %v)", idle, tl.Lanes[0].Idle)
	}
}

// manyGoroutines starts 50 goroutines that each work on a channel of their
// own, then one that deadlocks with the test's goroutine.
func manyGoroutines() {
	var wg sim.WaitGroup
	for range 49 {
		wg.Go(func() {
			c := sim.NewChan[int](1)
			c.Send(1)
			c.Recv()
		})
	}
	wg.Wait()
	var m sim.Mutex
	m.Lock()
	stuck := sim.NewChan[int](0)
	sim.Go(func() {
		m.Lock()
		stuck.Send(1)
	})
	stuck.Recv()
}
