package sched

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// The timer queue against a plain list, over random operations: timers
// set (in order of deadline or not), stopped, set again while pending or
// not, and fired, many of them on equal deadlines, with runs of stops long
// enough for the queue to rebuild itself. The timers must fire in the list's order (deadline, then the
// order in which they were set), whatever the stale entries left behind.
func TestTimerQueueAgainstAList(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	c := &Controller{}
	var timers []*Timer
	npending := 0
	fired, rebuilt := 0, 0
	inHeap, inOrder := 0, 0 // the most entries seen in the heap, and in the queue of timers set in order
	for step := range 40_000 {
		// Phases of 2,000 operations: some fire often, others mostly
		// stop timers whose deadlines are far.
		firing := step/2000%2 == 0
		switch op := rng.IntN(10); {
		case op < 3 && len(timers) < 500:
			x := &Timer{}
			c.set(x, delay(rng, firing))
			timers = append(timers, x)
			npending++
		case op < 6 && len(timers) > 0:
			x := timers[rng.IntN(len(timers))]
			was := x.pending
			if got := x.Stop(); got != was {
				t.Fatalf("step %d: Stop reported %v, the timer was pending: %v", step, got, was)
			}
			if was {
				npending--
				if c.timers.stale == 0 {
					rebuilt++
				}
			}
		case op < 8 && len(timers) > 0:
			x := timers[rng.IntN(len(timers))]
			if !x.Reset(delay(rng, firing)) {
				npending++
			}
		case firing || op == 9:
			want := pendingTimers(timers)
			in, ok := c.timerIn()
			if ok != (len(want) > 0) {
				t.Fatalf("step %d: timerIn reports a timer pending: %v, the list holds %d", step, ok, len(want))
			}
			if !ok {
				continue
			}
			if got := want[0].when - c.now; int64(in) != got {
				t.Fatalf("step %d: timerIn %d, want %d", step, in, got)
			}
			c.fireNext()
			if !want[0].fired || want[0].pending {
				t.Fatalf("step %d: fired the wrong timer (when %d, seq %d)", step, want[0].when, want[0].seq)
			}
			npending--
			fired++
		}
		q := &c.timers
		if live := len(q.h) + len(q.fifo) - q.head - q.stale; live != npending {
			t.Fatalf("step %d: the queue holds %d live entries, %d timers are pending", step, live, npending)
		}
		inHeap = max(inHeap, len(q.h))
		inOrder = max(inOrder, len(q.fifo)-q.head)
	}
	if fired < 1000 || rebuilt == 0 || inHeap < 10 || inOrder < 10 {
		t.Fatalf("fired %d timers, rebuilt the queue %d times, held up to %d in the heap and %d in order: the test exercises too little",
			fired, rebuilt, inHeap, inOrder)
	}
}

// pendingTimers returns the pending timers in the order they must fire.
func pendingTimers(timers []*Timer) []*Timer {
	var out []*Timer
	for _, x := range timers {
		if x.pending {
			out = append(out, x)
		}
	}
	slices.SortFunc(out, func(a, b *Timer) int {
		if a.when != b.when {
			return int(a.when - b.when)
		}
		return int(a.seq) - int(b.seq)
	})
	return out
}

// delay draws a delay from a few values, so that deadlines collide; far
// ones when not firing, so that stopped timers stay in the queue.
func delay(rng *rand.Rand, firing bool) time.Duration {
	d := time.Duration(rng.IntN(8)) * 10
	if !firing {
		d += time.Hour
	}
	return d
}
