package sched_test

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/weftdev/weft/explore"
	"github.com/weftdev/weft/internal/fnv"
	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
)

// pinnedBodies are executions whose decisions TestPinnedExecutions pins:
// the shape of BenchmarkExecutions, a mix of blocking primitives and the
// clock, and a goroutine that loops without blocking until another one
// runs, long enough for fairness (Decision.Starving) to step in.
var pinnedBodies = map[string]func(){
	"8x100": func() {
		var v sim.Var[int]
		var wg sim.WaitGroup
		for range 8 {
			wg.Go(func() {
				for i := range 100 {
					v.Store(i)
				}
			})
		}
		wg.Wait()
	},
	"mix": func() {
		var mu sim.Mutex
		var v sim.Var[int]
		var wg sim.WaitGroup
		ch := sim.NewChan[int](1)
		for i := range 5 {
			wg.Go(func() {
				mu.Lock()
				v.Store(v.Load() + i)
				mu.Unlock()
				ch.Send(i)
				sim.Sleep(time.Duration(i%3) * time.Microsecond)
				ch.Recv()
				sim.Yield()
			})
		}
		wg.Wait()
	},
	"starve": func() {
		var stop sim.Var[bool]
		var n sim.Var[int]
		var wg sim.WaitGroup
		wg.Go(func() {
			for i := 0; i < 3*sched.FairBound && !stop.Load(); i++ {
				n.Store(i)
			}
		})
		wg.Go(func() {
			n.Store(-1)
			stop.Store(true)
		})
		wg.Wait()
	},
}

// pinned are the digests of the executions of each body under PCT (with
// change points within the execution and past its end) and the random
// walk, seeds 0 to 9: hash, steps, decisions and schedule length of
// each. They change only when a change to the controller or a strategy
// changes decisions, which a change made for speed must not do. Run with
// WEFT_PIN_PRINT=1 to print them.
var pinned = map[string]uint64{
	"8x100/pct":     0x904eabed51e7be43,
	"8x100/random":  0x95562c73701a8be5,
	"mix/pct":       0x6e423a04570823eb,
	"mix/random":    0x2cad6be8fd5b4d9,
	"starve/pct":    0x56cfa8006fe7ab3d,
	"starve/random": 0xb0e0c477878c6b45,

	"8x100/pct-long":  0xc37d88f909b6ebd4,
	"mix/pct-long":    0xd85e1707c942c2f,
	"starve/pct-long": 0x523dd0c3bea1ecfc,
}

func TestPinnedExecutions(t *testing.T) {
	strategies := map[string]func(seed uint64) sched.Strategy{
		"pct":    func(seed uint64) sched.Strategy { return explore.PCT(seed, 3, 100) },
		"random": func(seed uint64) sched.Strategy { return explore.RandomWalk(seed) },
		// Change points past the end: the highest priority runs on, and a
		// goroutine that loops starves the others.
		"pct-long": func(seed uint64) sched.Strategy { return explore.PCT(seed, 3, 1<<20) },
	}
	for bname, body := range pinnedBodies {
		for sname, strat := range strategies {
			name := bname + "/" + sname
			h := uint64(fnv.Offset)
			for seed := range uint64(10) {
				r := sched.Run(body, strat(seed), sched.Options{})
				if r.Failure != nil {
					t.Fatalf("%s, seed %d: %s", name, seed, r.Failure.Summary())
				}
				for _, v := range []uint64{r.Hash, uint64(r.Steps), uint64(r.Decisions), uint64(len(r.Schedule()))} {
					h = fnv.Mix(h, v)
				}
			}
			if os.Getenv("WEFT_PIN_PRINT") != "" {
				t.Logf("%q: %#x,", name, h)
				continue
			}
			if h != pinned[name] {
				t.Errorf("%s: executions digest to %#x, pinned %#x: a decision changed", name, h, pinned[name])
			}
		}
	}
}

// asked hides a strategy's Prioritizer, keeping its Horizon: the
// controller asks Next at every decision.
type asked struct {
	sched.Strategy
	sched.Horizon
}

// A Prioritizer's decisions taken by the controller are the ones its Next
// takes: the same executions, event by event, with the strategy asked at
// every decision and with the decisions before Steady taken without it.
func TestPrioritizerDecidesAsNext(t *testing.T) {
	if _, ok := explore.PCT(0, 3, 100).(sched.Prioritizer); !ok {
		t.Fatal("PCT is no sched.Prioritizer")
	}
	for bname, body := range pinnedBodies {
		for _, steps := range []int{100, 1 << 20} {
			for seed := range uint64(20) {
				s := explore.PCT(seed, 3, steps)
				direct := summary(sched.Run(body, s, sched.Options{}))
				s = explore.PCT(seed, 3, steps)
				viaNext := summary(sched.Run(body, asked{s, s.(sched.Horizon)}, sched.Options{}))
				if fmt.Sprint(direct) != fmt.Sprint(viaNext) {
					t.Fatalf("%s, PCT over %d steps, seed %d: %+v, asking Next every time %+v", bname, steps, seed, direct, viaNext)
				}
			}
		}
	}
}
