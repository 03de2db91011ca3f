package sched_test

import (
	goflag "flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/weftdev/weft/explore"
	"github.com/weftdev/weft/internal/race"
	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
)

var update = goflag.Bool("update", false, "rewrite testdata/stable.golden")

// TestExecutionsAreStable runs executions of every primitive under PCT and
// random walks, with fixed seeds, and compares each one's event hash,
// events, decisions and outcome with what they were when the golden file
// was written: a change of the controller that means to change no
// decision (a faster path, a cache) must leave them all as they were, and
// a schedule saved by an earlier weft then replays the same. A change
// that does mean to change decisions rewrites the file (-update) and says
// so.
func TestExecutionsAreStable(t *testing.T) {
	// Under the race detector the strategy answers from a goroutine of
	// its own, a handoff a decision: the first executions only.
	n := 60
	if race.Enabled {
		n = 3
	}
	var got strings.Builder
	for _, b := range stableBodies {
		for i := range n {
			var s sched.Strategy
			switch i % 3 {
			case 0:
				s = explore.PCT(uint64(i), 3, 20000)
			case 1:
				s = explore.RandomWalk(uint64(i))
			default:
				s = explore.PCT(uint64(i), 10, 2000)
			}
			r := sched.Run(b.body, s, sched.Options{Epoch: time.Unix(1e9, 0)})
			fmt.Fprintf(&got, "%s %d %#x %d %d %s\n", b.name, i, r.Hash, r.Steps, r.Decisions, outcome(r))
		}
	}
	golden := filepath.Join("testdata", "stable.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	gotLines, wantLines := strings.Split(got.String(), "\n"), strings.Split(string(want), "\n")
	if race.Enabled {
		wantLines = firstOfEach(wantLines, n)
	}
	for i := range max(len(gotLines), len(wantLines)) {
		g, w := line(gotLines, i), line(wantLines, i)
		if g != w {
			t.Errorf("execution %d differs:\n got %s\nwant %s", i, g, w)
		}
	}
}

// firstOfEach keeps the first n lines of each body's.
func firstOfEach(lines []string, n int) []string {
	var kept []string
	count := map[string]int{}
	for _, l := range lines {
		name, _, _ := strings.Cut(l, " ")
		if count[name]++; count[name] <= n && l != "" {
			kept = append(kept, l)
		}
	}
	return append(kept, "")
}

func line(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return "(none)"
}

func outcome(r *sched.Result) string {
	if r.Failure == nil {
		return "pass"
	}
	return r.Failure.Kind.String()
}

// stableBodies exercise every way the controller decides: long waits
// that starve (fairness), pollers and spinners, locks, channels, selects,
// conds, timers.
var stableBodies = []struct {
	name string
	body func()
}{
	{"spin", func() {
		var turn sim.Var[int]
		var wg sim.WaitGroup
		for i := range 3 {
			wg.Go(func() {
				for j := range 3000 {
					if turn.Load() == i {
						turn.Store(j % 3)
					}
				}
			})
		}
		wg.Go(func() {
			for turn.Load() != 7 {
				sim.Yield()
			}
		})
		wg.Go(func() { sim.Sleep(time.Millisecond); turn.Store(7) })
		wg.Wait()
	}},
	{"mutex", func() {
		var mu sim.Mutex
		var n sim.Var[int]
		var wg sim.WaitGroup
		for range 6 {
			wg.Go(func() {
				for range 800 {
					mu.Lock()
					n.Store(n.Load() + 1)
					mu.Unlock()
				}
			})
		}
		wg.Wait()
	}},
	{"chan", func() {
		ch := sim.NewChan[int](1)
		var wg sim.WaitGroup
		for i := range 4 {
			wg.Go(func() {
				for j := range 1500 {
					ch.Send(i * j)
					ch.Recv()
				}
			})
		}
		wg.Wait()
	}},
	{"mixed", func() {
		var mu sim.Mutex
		cond := sim.NewCond(&mu)
		var rw sim.RWMutex
		ready := 0
		data := sim.NewChan[int](2)
		quit := sim.NewChan[int](0)
		var wg sim.WaitGroup
		for i := range 5 {
			wg.Go(func() {
				mu.Lock()
				for ready < i {
					cond.Wait()
				}
				ready++
				cond.Broadcast()
				mu.Unlock()
				for j := range 200 {
					if j%3 == 0 {
						rw.Lock()
						rw.Unlock()
					} else {
						rw.RLock()
						rw.RUnlock()
					}
					sim.Select(sim.OnSend(data, j, nil), sim.OnRecv(quit, func(int) {}), sim.OnDefault(func() { sim.Sleep(time.Microsecond) }))
				}
			})
		}
		wg.Go(func() {
			for range 400 {
				sim.Select(sim.OnRecv(data, func(int) {}), sim.OnDefault(func() { sim.Yield() }))
			}
		})
		wg.Go(func() {
			t := sim.NewTimer(time.Millisecond)
			t.C.Recv()
			mu.Lock()
			cond.Broadcast()
			mu.Unlock()
		})
		wg.Wait()
	}},
}
