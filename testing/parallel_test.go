package weft_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
	weft "github.com/weftdev/weft/testing"
)

// meet runs two parallel subtests that hand each other a value: they pass
// only when they run together.
func meet(t *weft.T) {
	ch := sim.NewChan[int](0)
	t.Run("receiver", func(t *weft.T) {
		t.Parallel()
		if v := ch.Recv(); v != 1 {
			t.Errorf("received %d", v)
		}
	})
	t.Run("sender", func(t *weft.T) {
		t.Parallel()
		ch.Send(1)
	})
}

// TestParallelLimitDeadlock: under go test's -parallel 1, parallel subtests
// that meet deadlock (go test hangs): the first holds the only slot and
// waits for the other, which waits for the slot; the schedule's entry
// records the limit, which its replays keep. With 2 slots (the
// top-level test gave its own up) they meet.
func TestParallelLimitDeadlock(t *testing.T) {
	t.Parallel()
	f, err := weft.Find(meet, weft.Iterations(20), weft.ParallelLimit(1))
	if err != nil || f == nil || f.Failure.Kind != sched.Deadlock {
		t.Fatalf("-parallel 1: want a deadlock, got %v (%v)", f, err)
	}
	if f.Entry.Parallel != 1 {
		t.Errorf("the entry records -parallel %d, want 1", f.Entry.Parallel)
	}
	if f, err := weft.Find(meet, weft.Iterations(20), weft.ParallelLimit(2)); err != nil || f != nil {
		t.Fatalf("-parallel 2: failure %v (%v)", f, err)
	}
}

// limited runs four parallel subtests under a test and records how many
// ran at once at most, and the order in which they started.
func limited(t *weft.T, most *int, order *[]string) {
	var mu sim.Mutex
	running := 0
	for _, name := range []string{"a", "b", "c", "d"} {
		t.Run(name, func(t *weft.T) {
			t.Parallel()
			mu.Lock()
			*order = append(*order, name)
			running++
			*most = max(*most, running)
			mu.Unlock()
			sim.Yield()
			mu.Lock()
			running--
			mu.Unlock()
		})
	}
}

// TestParallelLimitSlots: at most -parallel subtests run at once, and which
// of the waiting ones gets a freed slot is a choice of the schedule: the
// exploration finds each subtest first.
func TestParallelLimitSlots(t *testing.T) {
	t.Parallel()
	for _, limit := range []int{1, 2, 0} {
		most, firsts := 0, map[string]bool{}
		var order []string
		f, err := weft.Find(func(t *weft.T) {
			order = order[:0]
			t.Run("group", func(t *weft.T) { limited(t, &most, &order) })
			firsts[order[0]] = true
		}, weft.Iterations(100), weft.ParallelLimit(limit))
		if err != nil || f != nil {
			t.Fatalf("-parallel %d: failure %v (%v)", limit, f.Failure, err)
		}
		want := limit
		if limit == 0 {
			want = 4
		}
		if most != want {
			t.Errorf("-parallel %d: at most %d subtests ran at once, want %d", limit, most, want)
		}
		if len(firsts) != 4 {
			t.Errorf("-parallel %d: the subtests that started first: %v, want all four", limit, firsts)
		}
	}
}

// TestParallelLimitNested: under -parallel 1, the slots pass as go test
// passes them: a parallel subtest gives its slot to its own parallel
// subtests, a sequential one takes one back after them (here while a
// parallel sibling of its parent holds it), and every order completes.
func TestParallelLimitNested(t *testing.T) {
	t.Parallel()
	var log []string
	f, err := weft.Find(func(t *weft.T) {
		t.Run("group", func(t *weft.T) { nested(t, &log) })
	}, weft.Iterations(50), weft.ParallelLimit(1))
	if err != nil || f != nil {
		t.Fatalf("failure %v (%v)", f.Failure, err)
	}
	for _, p := range []string{"p1", "p2"} {
		i := slices.Index(log, p+" after seq")
		if i < 0 || !slices.Contains(log[:i], p+"/q1") || !slices.Contains(log[:i], p+"/q2") {
			t.Errorf("%s went on before its subtests completed: %s", p, strings.Join(log, ", "))
		}
	}
}

// nested: two parallel subtests, each with a sequential subtest that has
// two parallel subtests.
func nested(t *weft.T, log *[]string) {
	*log = (*log)[:0]
	var mu sim.Mutex
	for _, p := range []string{"p1", "p2"} {
		t.Run(p, func(t *weft.T) {
			t.Parallel()
			t.Run("seq", func(t *weft.T) {
				for _, q := range []string{"q1", "q2"} {
					t.Run(q, func(t *weft.T) {
						t.Parallel()
						mu.Lock()
						*log = append(*log, p+"/"+q)
						mu.Unlock()
					})
				}
			})
			mu.Lock()
			*log = append(*log, p+" after seq")
			mu.Unlock()
		})
	}
}
