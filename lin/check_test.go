package lin

import (
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/anishathalye/porcupine"
	"pgregory.net/rapid"

	"github.com/weftdev/weft/explore"
	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
	weft "github.com/weftdev/weft/testing"
)

// register is a shared int: Write stores, Read loads.
type register struct{ v sim.Int64 }

var registerSpec = Spec[*register, int]{
	New:  func() *register { return &register{} },
	Init: func() int { return 0 },
	Ops: []Operation[*register, int]{
		Op("Write", rapid.IntRange(1, 3),
			func(r *register, v int) any { r.v.Store(int64(v)); return nil },
			func(_ int, v int) (int, any) { return v, nil }),
		Op0("Read", func(r *register) int { return int(r.v.Load()) }, func(s int) (int, int) { return s, s }),
	},
}

// rec makes a record of a register call.
func rec(op string, arg, result any, lane int, start, end int64) record {
	c := call{op: 1, name: op}
	if op == "Write" {
		c = call{op: 0, name: op, arg: arg, has: true}
	}
	return record{call: c, lane: lane, start: start, end: end, result: result}
}

// TestCheckerKnownHistories checks porcupine, as lin uses it, against
// histories whose answer is known.
func TestCheckerKnownHistories(t *testing.T) {
	model := registerSpec.model()
	for _, tc := range []struct {
		name string
		rs   []record
		want bool
	}{
		{"sequential", []record{rec("Write", 1, nil, 1, 1, 2), rec("Read", nil, 1, 2, 3, 4)}, true},
		{"stale read after the write returned", []record{rec("Write", 1, nil, 1, 1, 2), rec("Read", nil, 0, 2, 3, 4)}, false},
		{"overlapping read sees the old value", []record{rec("Write", 1, nil, 1, 1, 4), rec("Read", nil, 0, 2, 2, 3)}, true},
		{"overlapping read sees the new value", []record{rec("Write", 1, nil, 1, 1, 4), rec("Read", nil, 1, 2, 2, 3)}, true},
		{"a value never written", []record{rec("Write", 1, nil, 1, 1, 4), rec("Read", nil, 2, 2, 2, 3)}, false},
		{"new then old", []record{
			rec("Write", 1, nil, 1, 1, 10), rec("Read", nil, 1, 2, 2, 3), rec("Read", nil, 0, 2, 4, 5),
		}, false},
		{"two writes, reads in either order", []record{
			rec("Write", 1, nil, 1, 1, 10), rec("Write", 2, nil, 2, 2, 9), rec("Read", nil, 2, 3, 3, 4), rec("Read", nil, 1, 3, 5, 6),
		}, true},
		{"two writes, reads disagree on the order", []record{
			rec("Write", 1, nil, 1, 1, 10), rec("Write", 2, nil, 2, 2, 9),
			rec("Read", nil, 2, 3, 3, 4), rec("Read", nil, 1, 3, 5, 6), rec("Read", nil, 2, 0, 11, 12),
		}, false},
	} {
		if got := porcupine.CheckOperations(model, operations(tc.rs)); got != tc.want {
			t.Errorf("%s: linearizable = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestCheckerAgainstBruteForce checks porcupine, as lin uses it, against
// the definition on random register histories: some order of the calls
// that respects real time (a call that returned before another was called
// comes first) gives every read the last value written.
func TestCheckerAgainstBruteForce(t *testing.T) {
	model := registerSpec.model()
	rng := rand.New(rand.NewPCG(1, 2))
	counts := map[bool]int{}
	for range 2000 {
		n := 2 + rng.IntN(4)
		rs := make([]record, n)
		for i := range rs {
			start := int64(rng.IntN(10))
			end := start + 1 + int64(rng.IntN(5))
			if rng.IntN(2) == 0 {
				rs[i] = rec("Write", 1+rng.IntN(2), nil, i, start*2, end*2+1)
			} else {
				rs[i] = rec("Read", nil, rng.IntN(3), i, start*2, end*2+1)
			}
		}
		want := bruteForce(rs)
		counts[want]++
		if got := porcupine.CheckOperations(model, operations(rs)); got != want {
			t.Fatalf("history %+v: porcupine says %v, the definition %v", rs, got, want)
		}
	}
	if counts[true] < 200 || counts[false] < 200 {
		t.Errorf("histories: %v linearizable and not: too few of one kind to tell", counts)
	}
}

// bruteForce decides whether a register history is linearizable by trying
// every order.
func bruteForce(rs []record) bool {
	idx := make([]int, len(rs))
	for i := range idx {
		idx[i] = i
	}
	var try func(k int) bool
	try = func(k int) bool {
		if k == len(idx) {
			v := 0
			for _, i := range idx {
				switch r := rs[i]; r.call.name {
				case "Write":
					v = r.call.arg.(int)
				case "Read":
					if r.result.(int) != v {
						return false
					}
				}
			}
			return true
		}
		for j := k; j < len(idx); j++ {
			idx[k], idx[j] = idx[j], idx[k]
			ok := true
			for _, before := range idx[:k] { // real time: nothing placed earlier began after this one returned
				if rs[before].start > rs[idx[k]].end {
					ok = false
				}
			}
			if ok && try(k+1) {
				return true
			}
			idx[k], idx[j] = idx[j], idx[k]
		}
		return false
	}
	return try(0)
}

// racyCounter adds by a load and a store.
type racyCounter struct{ v sim.Var[int] }

func counterSpec() Spec[*racyCounter, int] {
	return Spec[*racyCounter, int]{
		New:  func() *racyCounter { return &racyCounter{} },
		Init: func() int { return 0 },
		Ops: []Operation[*racyCounter, int]{
			Op0("Get", func(c *racyCounter) int { return c.v.Load() }, func(n int) (int, int) { return n, n }),
			Op("Add", rapid.IntRange(1, 3), func(c *racyCounter, d int) any { c.v.Store(c.v.Load() + d); return nil },
				func(n, d int) (int, any) { return n + d, nil }),
		},
	}
}

// TestShrunkIsMinimal checks the proof of shrinking: removing any one
// operation of the reported scenario, or any one deviation of its
// schedule, makes it pass.
func TestShrunkIsMinimal(t *testing.T) {
	sp := counterSpec()
	var last *scenario
	cases := sp.drawCases("TestShrunkIsMinimal")
	f, err := weft.FindCases(func(r *rapid.T) weft.Case {
		c := cases(r)
		last = c.scenario
		return c.Case
	}, weft.Iterations(3000))
	if err != nil || f == nil || f.Nondeterminism != nil {
		t.Fatalf("Find = %+v, %v", f, err)
	}
	s, devs := last, f.Property.Deviations
	if !fails(&sp, s, devs) {
		t.Fatalf("the reported scenario %s with %#v passes", s.describe(), devs)
	}
	t.Logf("shrunk to %s %v | %v, %#v", s.describe(), s.init, s.lanes.GoString(), devs)
	for _, smaller := range withoutOne(s) {
		if fails(&sp, smaller, devs) {
			t.Errorf("%s (init %v, lanes %s, final %v) still fails with %#v", smaller.describe(), smaller.init, smaller.lanes.GoString(), smaller.final, devs)
		}
	}
	for i := range devs {
		fewer := slices.Delete(slices.Clone(devs), i, i+1)
		if fails(&sp, s, fewer) {
			t.Errorf("%s still fails with %#v", s.describe(), fewer)
		}
	}
}

// fails runs a scenario along deviations and reports whether its history
// is not linearizable.
func fails[O, S any](sp *Spec[O, S], s *scenario, devs explore.Deviations) bool {
	h, body := runScenario(sp, s)
	r := explore.Execute(func() { body(nil) }, explore.Deviate(devs), sched.Options{})
	if r.Failure != nil {
		return false
	}
	return !porcupine.CheckOperations(sp.model(), operations(h.records()))
}

// withoutOne returns the scenarios with one call fewer (a goroutine left
// with none is gone).
func withoutOne(s *scenario) []*scenario {
	var out []*scenario
	for i := range s.init {
		out = append(out, &scenario{init: slices.Delete(slices.Clone(s.init), i, i+1), lanes: s.lanes, final: s.final})
	}
	for l, lane := range s.lanes {
		for i := range lane {
			lanes := slices.Clone(s.lanes)
			lanes[l] = slices.Delete(slices.Clone(lane), i, i+1)
			if len(lanes[l]) == 0 {
				lanes = slices.Delete(lanes, l, l+1)
			}
			out = append(out, &scenario{init: s.init, lanes: lanes, final: s.final})
		}
	}
	for i := range s.final {
		out = append(out, &scenario{init: s.init, lanes: s.lanes, final: slices.Delete(slices.Clone(s.final), i, i+1)})
	}
	return out
}

// TestViolationReport checks what a violation shows: the history as
// columns, one per goroutine, and porcupine's visualization in a file.
func TestViolationReport(t *testing.T) {
	sp := counterSpec()
	s := &scenario{lanes: lanes{{{op: 1, name: "Add", arg: 1, has: true}}, {{op: 1, name: "Add", arg: 2, has: true}}},
		final: calls{{op: 0, name: "Get"}}}
	devs := explore.Deviations{{G: 1, N: 2}} // 0.1 preempted before its Store
	h, body := runScenario(&sp, s)
	explore.Execute(func() { body(nil) }, explore.Deviate(devs), sched.Options{})
	v := &violation{name: "TestViolationReport", model: sp.model(), history: h, s: s}
	details := v.Details()
	for _, want := range []string{"| goroutine 0.1", "| goroutine 0.2", "Add(1): -", "Add(2): -", "final (goroutine 0): Get(): 1", "visualization: "} {
		if !strings.Contains(details, want) {
			t.Errorf("the details lack %q:\n%s", want, details)
		}
	}
	path := strings.Fields(details[strings.Index(details, "visualization: ")+len("visualization: "):])[0]
	html, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(html), "<html") || !strings.Contains(string(html), "Add(2)") {
		t.Errorf("the visualization %s: %v", path, err)
	}
	os.Remove(path)
}

// blocking is a structure whose Take blocks for good when nothing was put:
// the liveness check reports it.
type blocking struct {
	mu    sim.Mutex
	items []int
	ready *sim.Cond
}

func (b *blocking) put(v int) {
	b.mu.Lock()
	b.items = append(b.items, v)
	b.mu.Unlock()
	b.ready.Signal()
}
func (b *blocking) take() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	for len(b.items) == 0 {
		b.ready.Wait()
	}
	v := b.items[0]
	b.items = b.items[1:]
	return v
}

// TestOperationsMustNotBlock checks Lincheck's liveness check: an
// operation that blocks for good is a deadlock, found and shrunk to the
// one call that blocks.
func TestOperationsMustNotBlock(t *testing.T) {
	sp := Spec[*blocking, []int]{
		New:  func() *blocking { b := &blocking{}; b.ready = sim.NewCond(&b.mu); return b },
		Init: func() []int { return nil },
		Ops: []Operation[*blocking, []int]{
			Op("Put", rapid.IntRange(1, 3), func(b *blocking, v int) any { b.put(v); return nil },
				func(s []int, v int) ([]int, any) { return append(s[:len(s):len(s)], v), nil }),
			Op0("Take", (*blocking).take, func(s []int) ([]int, int) {
				if len(s) == 0 {
					return s, 0
				}
				return s[1:], s[0]
			}),
		},
	}
	f, err := Find(sp, weft.Iterations(500))
	if err != nil || f == nil {
		t.Fatalf("Find = %v, %v", f, err)
	}
	if f.Failure.Kind != sched.Deadlock || f.Property.Inputs != "1 operation on 1 goroutine" {
		t.Errorf("found %s with %s, want a deadlock of one Take", f.Failure.Summary(), f.Property.Inputs)
	}
}

// TestSpecValidate checks that a spec missing a part is refused with what
// is missing.
func TestSpecValidate(t *testing.T) {
	for _, tc := range []struct {
		sp   Spec[*register, int]
		want string
	}{
		{Spec[*register, int]{Init: registerSpec.Init, Ops: registerSpec.Ops}, "Spec.New is nil"},
		{Spec[*register, int]{New: registerSpec.New, Ops: registerSpec.Ops}, "Spec.Init is nil"},
		{Spec[*register, int]{New: registerSpec.New, Init: registerSpec.Init}, "Spec.Ops is empty"},
		{Spec[*register, int]{New: registerSpec.New, Init: registerSpec.Init, Ops: []Operation[*register, int]{{}}}, "Spec.Ops[0] was not made by Op or Op0"},
	} {
		if _, err := Find(tc.sp); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Find: %v, want %q", err, tc.want)
		}
	}
}
