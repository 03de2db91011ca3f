package sched_test

import (
	"bytes"
	"encoding/gob"
	"runtime"
	"slices"
	"testing"

	"github.com/weftdev/weft/explore"
	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
)

// A Result keeps its execution's choices compact: the controller's record
// of them, about 32 bytes a choice, and builds the Schedule (112 bytes a
// choice, strings included) only when asked. A long random walk's
// execution, which makes a choice at about every other event, allocates
// well under the expanded Schedule's size; the Schedule built afterwards
// replays it.
func TestResultScheduleCompact(t *testing.T) {
	const events = 20_000
	body := func() {
		var v sim.Var[int]
		var wg sim.WaitGroup
		wg.Go(func() {
			for j := range events / 2 {
				v.Store(j)
			}
		})
		for j := range events / 2 {
			v.Store(j)
		}
		wg.Wait()
	}
	run := func() *sched.Result { return sched.Run(body, explore.RandomWalk(1), sched.Options{}) }
	run().Release() // the first execution's own costs: pools, tables
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	r := run()
	runtime.ReadMemStats(&after)
	if r.Failure != nil {
		t.Fatal(r.Failure.Summary())
	}
	n := len(r.Schedule())
	if n < events/10 {
		t.Fatalf("%d choices in %d events: want a choice at about every other event", n, events)
	}
	if per := float64(after.TotalAlloc-before.TotalAlloc) / float64(n); per > 80 {
		t.Errorf("the execution allocated %.0f bytes a choice (%d choices), want at most 80: the Schedule built before it was asked for?", per, n)
	}
	again := explore.Execute(body, explore.Follow(r.Schedule()), sched.Options{})
	if again.Failure != nil || again.Hash != r.Hash || len(again.Schedule()) != n {
		t.Errorf("following the schedule: hash %x, %d choices, failure %v; want %x, %d choices, none",
			again.Hash, len(again.Schedule()), again.Failure, r.Hash, n)
	}
}

// A Result sent by gob, as a worker process sends up a failing
// execution's, keeps its schedule, which is built only when asked for.
func TestResultGobKeepsSchedule(t *testing.T) {
	r := sched.Run(reuseBody, explore.RandomWalk(3), sched.Options{})
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(r); err != nil {
		t.Fatal(err)
	}
	var got sched.Result
	if err := gob.NewDecoder(&b).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if len(r.Schedule()) == 0 || !slices.Equal(got.Schedule(), r.Schedule()) || got.Hash != r.Hash || got.Steps != r.Steps {
		t.Errorf("decoded: hash %x, %d steps, schedule %v\nwant %x, %d steps, %v", got.Hash, got.Steps, got.Schedule(), r.Hash, r.Steps, r.Schedule())
	}
}
