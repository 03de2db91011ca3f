package sim_test

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/weftdev/weft/explore"
	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
)

// randChecks calls every random function with a range, and reports values
// out of range through errorf; it returns the values drawn.
func randChecks(errorf func(format string, args ...any)) []any {
	var out []any
	check := func(name string, v any, ok bool) {
		if !ok {
			errorf("%s = %v: out of range", name, v)
		}
		out = append(out, v)
	}
	v1 := sim.Int()
	check("Int", v1, v1 >= 0)
	v2 := sim.Int31()
	check("Int31", v2, v2 >= 0)
	v3 := sim.Int31n(1000)
	check("Int31n", v3, v3 >= 0 && v3 < 1000)
	v4 := sim.Int63()
	check("Int63", v4, v4 >= 0)
	v5 := sim.Int63n(1e12 + 7)
	check("Int63n", v5, v5 >= 0 && v5 < 1e12+7)
	v6 := sim.RandUint32()
	check("RandUint32", v6, true)
	v7 := sim.RandUint64()
	check("RandUint64", v7, true)
	v8 := sim.Uint()
	check("Uint", v8, true)
	v9 := sim.Float32()
	check("Float32", v9, v9 >= 0 && v9 < 1)
	v10 := sim.Float64()
	check("Float64", v10, v10 >= 0 && v10 < 1)
	v11 := sim.IntN(70000)
	check("IntN", v11, v11 >= 0 && v11 < 70000)
	v12 := sim.Int32N(math.MaxInt32)
	check("Int32N", v12, v12 >= 0 && v12 < math.MaxInt32)
	v13 := sim.Int64N(math.MaxInt64)
	check("Int64N", v13, v13 >= 0 && v13 < math.MaxInt64)
	v14 := sim.UintN(3)
	check("UintN", v14, v14 < 3)
	v15 := sim.Uint32N(1 << 20)
	check("Uint32N", v15, v15 < 1<<20)
	v16 := sim.Uint64N(math.MaxUint64)
	check("Uint64N", v16, v16 < math.MaxUint64)
	v17 := sim.N(10 * time.Second)
	check("N(Duration)", v17, v17 >= 0 && v17 < 10*time.Second)
	v18 := sim.N(uint8(200))
	check("N(uint8)", v18, v18 < 200)
	v19 := sim.Perm(5)
	check("Perm", v19, isPerm(v19))
	s := []int{0, 1, 2, 3, 4, 5}
	sim.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
	check("Shuffle", s, isPerm(s))
	check("Perm(0)", sim.Perm(0), len(sim.Perm(0)) == 0)
	return out
}

func isPerm(p []int) bool {
	q := slices.Clone(p)
	slices.Sort(q)
	for i, v := range q {
		if v != i {
			return false
		}
	}
	return true
}

// randPanics calls every function that checks its argument with an invalid
// one, and returns the panics.
func randPanics() []string {
	return []string{
		panicOf(func() { sim.Int31n(0) }),
		panicOf(func() { sim.Int63n(-1) }),
		panicOf(func() { sim.IntN(0) }),
		panicOf(func() { sim.Int32N(-5) }),
		panicOf(func() { sim.Int64N(0) }),
		panicOf(func() { sim.UintN(0) }),
		panicOf(func() { sim.Uint32N(0) }),
		panicOf(func() { sim.Uint64N(0) }),
		panicOf(func() { sim.N(time.Duration(0)) }),
		panicOf(func() { sim.N(uint(0)) }),
		panicOf(func() { sim.Shuffle(-1, func(i, j int) {}) }),
		panicOf(func() { sim.Perm(-1) }),
	}
}

var wantRandPanics = []string{
	"sim.Int31n: invalid argument to Int31n",
	"sim.Int63n: invalid argument to Int63n",
	"sim.IntN: invalid argument to IntN",
	"sim.Int32N: invalid argument to Int32N",
	"sim.Int64N: invalid argument to Int64N",
	"sim.UintN: invalid argument to UintN",
	"sim.Uint32N: invalid argument to Uint32N",
	"sim.Uint64N: invalid argument to Uint64N",
	"sim.N: invalid argument to N",
	"sim.N: invalid argument to N",
	"sim.Shuffle: invalid argument to Shuffle",
	"runtime error: makeslice: len out of range",
}

func TestPlainRandFuncs(t *testing.T) {
	parallel(4, func(int) {
		for range 200 {
			randChecks(t.Errorf)
		}
	})
	if got := randPanics(); !reflect.DeepEqual(got, wantRandPanics) {
		t.Errorf("panics %q\nwant %q", got, wantRandPanics)
	}
}

func TestControlledRandFuncsPanics(t *testing.T) {
	var got []string
	r := runOnce(func() { got = randPanics() })
	if r.Failure != nil {
		t.Fatal(r.Failure.Summary())
	}
	if !reflect.DeepEqual(got, wantRandPanics) {
		t.Errorf("panics %q\nwant %q", got, wantRandPanics)
	}
}

// randBody draws from several goroutines; vals collects what each drew.
func randBody(vals map[string][]any, errorf func(string, ...any)) func() {
	return func() {
		clear(vals)
		var mu sync.Mutex // the goroutines are not ordered with each other
		var wg sim.WaitGroup
		for i := range 2 {
			wg.Go(func() {
				v := randChecks(errorf)
				mu.Lock()
				vals[fmt.Sprint(i)] = v
				mu.Unlock()
			})
		}
		v := randChecks(errorf)
		mu.Lock()
		vals["root"] = v
		mu.Unlock()
		wg.Wait()
	}
}

// The values are choices of the schedule: the same seed draws the same
// ones, and so does the replayed schedule.
func TestControlledRandFuncsDeterminism(t *testing.T) {
	vals := map[string][]any{}
	body := randBody(vals, t.Errorf)
	distinct := map[string]bool{}
	for _, s := range strategies {
		for seed := range uint64(20) {
			r1 := sched.Run(body, s.Make(seed), sched.Options{})
			v1 := fmt.Sprint(vals)
			r2 := sched.Run(body, s.Make(seed), sched.Options{})
			v2 := fmt.Sprint(vals)
			rp := explore.Follow(r1.Schedule())
			r3 := sched.Run(body, rp, sched.Options{})
			v3 := fmt.Sprint(vals)
			if r1.Failure != nil || r2.Failure != nil || r3.Failure != nil {
				t.Fatalf("%s seed %d: %s", s.Name, seed, r1.Failure.Summary())
			}
			if v1 != v2 || r1.Hash != r2.Hash {
				t.Fatalf("%s seed %d: the same seed drew\n%s\n%s", s.Name, seed, v1, v2)
			}
			if v3 != v1 || r3.Hash != r1.Hash || len(rp.Drift()) != 0 {
				t.Fatalf("%s seed %d: replay drew\n%s\nwant\n%s\ndrift %v", s.Name, seed, v3, v1, rp.Drift())
			}
			distinct[v1] = true
		}
	}
	if len(distinct) < 40 {
		t.Errorf("40 executions drew %d distinct value sets", len(distinct))
	}
	// The default policy picks 0 everywhere.
	r := sched.Run(body, explore.Follow(nil), sched.Options{})
	if r.Failure != nil || len(r.Schedule()) != 0 || vals["root"][0] != 0 || vals["root"][9] != 0.0 {
		t.Errorf("default policy: %s, schedule %v, values %v", r.Failure.Summary(), r.Schedule(), vals["root"])
	}
}

// Over seeds, every value of a small range comes up.
func TestControlledRandFuncsReachable(t *testing.T) {
	draws := []struct {
		name string
		n    int
		f    func() any
	}{
		{"Int31n(3)", 3, func() any { return sim.Int31n(3) }},
		{"Int63n(3)", 3, func() any { return sim.Int63n(3) }},
		{"IntN(4)", 4, func() any { return sim.IntN(4) }},
		{"Int32N(2)", 2, func() any { return sim.Int32N(2) }},
		{"Int64N(3)", 3, func() any { return sim.Int64N(3) }},
		{"UintN(3)", 3, func() any { return sim.UintN(3) }},
		{"Uint32N(3)", 3, func() any { return sim.Uint32N(3) }},
		{"Uint64N(2)", 2, func() any { return sim.Uint64N(2) }},
		{"N(int8(3))", 3, func() any { return sim.N(int8(3)) }},
		{"N(Duration(3))", 3, func() any { return sim.N(time.Duration(3)) }},
		{"Perm(3)", 6, func() any { return fmt.Sprint(sim.Perm(3)) }},
		{"Shuffle(3)", 6, func() any {
			s := []int{0, 1, 2}
			sim.Shuffle(3, func(i, j int) { s[i], s[j] = s[j], s[i] })
			return fmt.Sprint(s)
		}},
	}
	seen := make([]map[any]bool, len(draws))
	for i := range seen {
		seen[i] = map[any]bool{}
	}
	for seed := range uint64(100) {
		r := sched.Run(func() {
			for i, d := range draws {
				seen[i][d.f()] = true
			}
		}, explore.RandomWalk(seed), sched.Options{})
		if r.Failure != nil {
			t.Fatal(r.Failure.Summary())
		}
	}
	for i, d := range draws {
		if len(seen[i]) != d.n {
			t.Errorf("%s drew %v, want %d distinct values", d.name, seen[i], d.n)
		}
	}
}

// scripted is a strategy that picks the given values, in order, then 0,
// and otherwise follows the default policy. It notes each range it is asked
// for.
type scripted struct {
	picks []int
	asked []int
}

func (s *scripted) Spawned(*sched.G)                {}
func (s *scripted) Next(d *sched.Decision) *sched.G { return d.Default }
func (s *scripted) Choose(_ *sched.G, n int) (v int) {
	s.asked = append(s.asked, n)
	if len(s.picks) > 0 {
		v, s.picks = s.picks[0], s.picks[1:]
	}
	return v
}

// Wide values are drawn in chunks of 16 bits, most significant first, one
// event each, as one operation; a value out of range is drawn again.
func TestControlledRandChunks(t *testing.T) {
	const c = 1 << 16
	type chunkCase struct {
		name   string
		f      func() any
		picks  []int
		want   any
		asked  []int
		events int
	}
	tests := []chunkCase{
		{"RandUint64", func() any { return sim.RandUint64() }, []int{0xFFFF, 0x1234, 0xABCD, 1},
			uint64(0xFFFF1234ABCD0001), []int{c, c, c, c}, 4},
		{"Float64", func() any { return sim.Float64() }, []int{31, c - 1, c - 1, c - 1},
			float64(1<<53-1) / (1 << 53), []int{32, c, c, c}, 4},
		{"Float32", func() any { return sim.Float32() }, []int{255, c - 1},
			float32(1<<24-1) / (1 << 24), []int{256, c}, 2},
		{"Int31n small", func() any { return sim.Int31n(c) }, []int{c - 1}, int32(c - 1), []int{c}, 1},
		{"Int63n top", func() any { return sim.Int63n(c + 1) }, []int{1, 0}, int64(c), []int{2, c}, 2},
		{"Int63n overflow", func() any { return sim.Int63n(c + 1) }, []int{1, 1, 0, 5},
			int64(5), []int{2, c, 2, c}, 4},
		// The second chunk already exceeds the range's: no third.
		{"Uint64N early", func() any { return sim.Uint64N(1<<32 + 5) }, []int{1, 1, 0, 7, 9},
			uint64(7<<16 | 9), []int{2, c, 2, c, c}, 5},
		{"Uint64N max", func() any { return sim.Uint64N(1<<32 + 5) }, []int{1, 0, 4},
			uint64(1<<32 + 4), []int{2, c, c}, 3},
	}
	if strconv.IntSize == 64 {
		tests = append(tests, chunkCase{"Int", func() any { return sim.Int() }, []int{1 << 14, 0, 0, 0}, math.MaxInt>>1 + 1, []int{c / 2, c, c, c}, 4})
	}
	for _, tc := range tests {
		s := &scripted{picks: tc.picks}
		var got any
		r := sched.Run(func() { got = tc.f() }, s, sched.Options{Trace: true})
		if r.Failure != nil {
			t.Fatalf("%s: %s", tc.name, r.Failure.Summary())
		}
		if got != tc.want || !reflect.DeepEqual(s.asked, tc.asked) {
			t.Errorf("%s: got %v asking %v, want %v asking %v", tc.name, got, s.asked, tc.want, tc.asked)
		}
		ops := map[int]bool{}
		for _, e := range r.Trace {
			ops[e.Ops] = true
		}
		if len(r.Trace) != tc.events || len(ops) != 1 {
			t.Errorf("%s: %d events, %d operations; want %d events, 1 operation", tc.name, len(r.Trace), len(ops), tc.events)
		}
	}
}

// Perm and Shuffle draw each index as an operation of its own, Shuffle each
// before its swap, whose events come between.
func TestControlledShuffleEvents(t *testing.T) {
	r := sched.Run(func() {
		var v sim.Var[int]
		sim.Shuffle(3, func(i, j int) { v.Store(i) })
		sim.Perm(3)
		sim.Perm(1)
	}, explore.RandomWalk(1), sched.Options{Trace: true})
	if r.Failure != nil {
		t.Fatal(r.Failure.Summary())
	}
	var got []string
	for _, e := range r.Trace {
		got = append(got, fmt.Sprintf("%s#%d", e.Op, e.Ops))
	}
	want := []string{"Shuffle#1", "Var.Store#2", "Shuffle#3", "Var.Store#4", "Perm#5", "Perm#6"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("events %v, want %v", got, want)
	}
}

// Values drawn in chunks, and drawn again when out of range, are uniform.
func TestControlledRandUniform(t *testing.T) {
	const runs = 3000
	var low, mid, float, thirds [3]int
	for seed := range uint64(runs) {
		r := sched.Run(func() {
			low[sim.Int63n(100001)*2/100001]++   // rejects about a quarter of its draws
			mid[sim.IntN(3<<16)/(1<<16)]++       // three values of the top chunk
			float[int(sim.Float64()*2)]++        // halves
			thirds[sim.Uint64N(3<<40)/(1<<40)]++ // three chunks
		}, explore.RandomWalk(seed), sched.Options{})
		if r.Failure != nil {
			t.Fatal(r.Failure.Summary())
		}
	}
	// A binomial's standard deviation is below 30 here: 5 of them.
	for _, c := range []struct {
		name    string
		buckets []int
	}{{"Int63n(100001) halves", low[:2]}, {"IntN(3<<16) thirds", mid[:]}, {"Float64 halves", float[:2]}, {"Uint64N(3<<40) thirds", thirds[:]}} {
		for _, b := range c.buckets {
			if want := runs / len(c.buckets); b < want-150 || b > want+150 {
				t.Errorf("%s: %v", c.name, c.buckets)
				break
			}
		}
	}
}

// Past its budget an execution draws random values from itself, one event
// each and no choice recorded: a stress test of millions of draws runs in
// bounded memory, its values still vary, and a replay of its schedule draws
// the same ones (ristretto's TestTreeCycle: 16 million rand.Uint64, which
// kept 33 million choices, 8 GB, and ran past the budgets).
func TestControlledDrawPastTheBudget(t *testing.T) {
	const budget, draws = 1000, 3000
	var got []uint64
	body := func() {
		got = got[:0]
		for range draws {
			got = append(got, sim.RandUint64())
		}
	}
	opts := sched.Options{MaxSteps: budget}
	r := sched.Run(body, explore.RandomWalk(3), opts)
	first := slices.Clone(got)
	if r.Failure != nil || !r.Overran {
		t.Fatalf("failure %s, overran %v", r.Failure.Summary(), r.Overran)
	}
	// Four events a draw within the budget, one past it.
	if want := budget + (draws - budget/4); r.Steps < want-8 || r.Steps > want+8 {
		t.Errorf("%d events, want about %d", r.Steps, want)
	}
	if len(r.Schedule()) > budget {
		t.Errorf("%d choices recorded for %d events explored", len(r.Schedule()), budget)
	}
	distinct := map[uint64]bool{}
	for _, v := range first[budget/4+1:] {
		distinct[v] = true
	}
	if len(distinct) < draws-budget/4-10 {
		t.Errorf("%d distinct values among the %d drawn past the budget", len(distinct), draws-budget/4-1)
	}
	replay := sched.Run(body, explore.Follow(r.Schedule()), opts)
	if replay.Hash != r.Hash || !slices.Equal(got, first) {
		t.Errorf("the replay drew other values: hash %#x, want %#x", replay.Hash, r.Hash)
	}
}
