package sim_test

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/weftdev/weft/explore"
	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
)

// keysOf ranges over m as the rewriter rewrites a range loop, and returns
// the keys in the order they came.
func keysOf[M ~map[K]V, K comparable, V any](m M) []K {
	var out []K
	for it := sim.MapRange(m); it.Next(); {
		k := it.Key()
		out = append(out, k)
	}
	return out
}

// rotations returns the rotations of sorted, as strings.
func rotations[K any](sorted []K) map[string]bool {
	out := map[string]bool{}
	for i := range sorted {
		out[fmt.Sprint(append(slices.Clone(sorted[i:]), sorted[:i]...))] = true
	}
	return out
}

// Under control, the order is a rotation of the sorted keys that the
// schedule chooses: the same seed and the replayed schedule give the same
// order, the seeds give every rotation, and the default policy the sorted
// order.
func TestMapRangeControlled(t *testing.T) {
	m := map[int]string{}
	for i := range 8 {
		m[i*7%8] = fmt.Sprint(i)
	}
	var got []int
	body := func() { got = keysOf(m) }
	want := rotations([]int{0, 1, 2, 3, 4, 5, 6, 7})
	seen := map[string]bool{}
	for seed := range uint64(60) {
		r1 := sched.Run(body, explore.RandomWalk(seed), sched.Options{})
		o1 := fmt.Sprint(got)
		r2 := sched.Run(body, explore.RandomWalk(seed), sched.Options{})
		o2 := fmt.Sprint(got)
		rp := explore.Follow(r1.Schedule())
		r3 := sched.Run(body, rp, sched.Options{})
		o3 := fmt.Sprint(got)
		if r1.Failure != nil || r2.Failure != nil || r3.Failure != nil {
			t.Fatalf("seed %d: %s", seed, r1.Failure.Summary())
		}
		if o1 != o2 || o1 != o3 || r1.Hash != r3.Hash || len(rp.Drift()) != 0 {
			t.Fatalf("seed %d: orders %s, %s, replayed %s (drift %v)", seed, o1, o2, o3, rp.Drift())
		}
		if !want[o1] {
			t.Fatalf("seed %d: order %s, not a rotation of the sorted keys", seed, o1)
		}
		seen[o1] = true
	}
	if len(seen) != len(want) {
		t.Errorf("60 seeds gave %d of the %d rotations: %v", len(seen), len(want), seen)
	}
	r := sched.Run(body, explore.Follow(nil), sched.Options{})
	if r.Failure != nil || fmt.Sprint(got) != "[0 1 2 3 4 5 6 7]" {
		t.Errorf("default policy: %s, order %v", r.Failure.Summary(), got)
	}
}

// One choice picks the start, of the number of keys; none for one key.
func TestMapRangeChoice(t *testing.T) {
	m := map[string]int{"a": 1, "b": 2, "c": 3, "d": 4}
	var got []string
	for pick, want := range []string{"[a b c d]", "[b c d a]", "[c d a b]", "[d a b c]"} {
		s := &scripted{picks: []int{pick}}
		r := sched.Run(func() { got = keysOf(m) }, s, sched.Options{})
		if r.Failure != nil || fmt.Sprint(got) != want || !slices.Equal(s.asked, []int{4}) {
			t.Errorf("pick %d: %s, order %v, want %s; asked %v", pick, r.Failure.Summary(), got, want, s.asked)
		}
	}
	s := &scripted{}
	r := sched.Run(func() {
		keysOf(map[int]int{1: 1})
		keysOf(map[int]int{})
		keysOf(map[int]int(nil))
	}, s, sched.Options{})
	if r.Failure != nil || len(s.asked) != 0 {
		t.Errorf("maps of one entry or none: %s, asked %v", r.Failure.Summary(), s.asked)
	}
}

type addr struct{ host, port string }

type named map[addr]*int

// Keys of every kind with an order by value come sorted under the default
// policy; keys with none (pointers) come all, with no choice.
func TestMapRangeKinds(t *testing.T) {
	one, two := 1, 2
	cases := []struct {
		name string
		keys func() any
		want string
	}{
		{"bool", func() any { return keysOf(map[bool]int{true: 1, false: 0}) }, "[false true]"},
		{"int8", func() any { return keysOf(map[int8]int{3: 0, -4: 0, 0: 0}) }, "[-4 0 3]"},
		{"uint", func() any { return keysOf(map[uint]int{3: 0, 1 << 40: 0, 0: 0}) }, "[0 3 1099511627776]"},
		{"float", func() any { return keysOf(map[float64]int{2.5: 0, math.Inf(-1): 0, -0.5: 0}) }, "[-Inf -0.5 2.5]"},
		{"complex", func() any { return keysOf(map[complex64]int{1i: 0, 1: 0, 0: 0, 1 + 2i: 0}) }, "[(0+0i) (0+1i) (1+0i) (1+2i)]"},
		{"string", func() any { return keysOf(map[string]int{"b": 0, "ab": 0, "": 0}) }, "[ ab b]"},
		{"array", func() any { return keysOf(map[[2]int]int{{1, 2}: 0, {0, 9}: 0, {1, 1}: 0}) }, "[[0 9] [1 1] [1 2]]"},
		{"struct", func() any {
			return keysOf(named{{"b", "1"}: nil, {"a", "2"}: nil, {"a", "10"}: nil})
		}, "[{a 10} {a 2} {b 1}]"},
		{"interface", func() any {
			return keysOf(map[any]int{"x": 0, 2: 0, 1: 0, nil: 0, addr{"h", "p"}: 0, int8(0): 0})
		}, "[<nil> 1 2 0 {h p} x]"}, // int, int8, sim_test.addr, string
		{"pointer", func() any {
			ks := keysOf(map[*int]int{&one: 1, &two: 2})
			return len(ks)
		}, "2"},
	}
	for _, c := range cases {
		s := &scripted{}
		var got any
		r := sched.Run(func() { got = c.keys() }, s, sched.Options{})
		if r.Failure != nil || fmt.Sprint(got) != c.want {
			t.Errorf("%s: %s, keys %v, want %s", c.name, r.Failure.Summary(), got, c.want)
		}
		if c.name == "pointer" && len(s.asked) != 0 {
			t.Errorf("pointer keys: asked %v, want no choice", s.asked)
		}
	}
	// An interface holding a pointer has no order: Go's, no choice.
	s := &scripted{}
	var n int
	r := sched.Run(func() { n = len(keysOf(map[any]int{1: 0, &one: 0, "x": 0})) }, s, sched.Options{})
	if r.Failure != nil || n != 3 || len(s.asked) != 0 {
		t.Errorf("interface keys holding a pointer: %s, %d keys, asked %v", r.Failure.Summary(), n, s.asked)
	}
}

// rangeMutating ranges over m, deleting the entries the loop has not
// reached yet whose key is in del at the first entry, and setting each
// entry's value before it is reached; it returns what the loop produced.
func rangeMutating(m map[int]int, del []int) string {
	var out []string
	first := true
	for it := sim.MapRange(m); it.Next(); {
		k, v := it.Entry()
		if first {
			first = false
			for _, d := range del {
				if d != k {
					delete(m, d)
				}
			}
			for j := range m {
				if j != k {
					m[j] = 100 + j
				}
			}
			m[1000] = 0 // may be produced or not: never by MapRange
		}
		out = append(out, fmt.Sprintf("%d:%d", k, v))
	}
	return strings.Join(out, " ")
}

// An entry deleted before the loop reaches it is not produced, an entry
// added is not either, and an entry's value is its value when reached: in
// plain mode and under control.
func TestMapRangeMutation(t *testing.T) {
	check := func(mode, got string) {
		t.Helper()
		var keys []int
		for i, p := range strings.Fields(got) {
			var k, v int
			fmt.Sscanf(p, "%d:%d", &k, &v)
			keys = append(keys, k)
			if i > 0 && (v != 100+k || k == 2 || k == 4 || k == 1000) {
				t.Errorf("%s: produced %q: %s was deleted, added, or had its value changed", mode, got, p)
			}
		}
		want := []int{0, 1, 3}
		if len(keys) > 0 && !slices.Contains(want, keys[0]) {
			want = append(want, keys[0])
		}
		slices.Sort(keys)
		slices.Sort(want)
		if !slices.Equal(keys, want) {
			t.Errorf("%s: produced %q, want the keys %v", mode, got, want)
		}
	}
	for range 20 {
		m := map[int]int{0: 0, 1: 1, 2: 2, 3: 3, 4: 4}
		check("plain", rangeMutating(m, []int{2, 4}))
	}
	var got string
	r := sched.Run(func() {
		got = rangeMutating(map[int]int{0: 0, 1: 1, 2: 2, 3: 3, 4: 4}, []int{2, 4})
	}, explore.Follow(nil), sched.Options{})
	if r.Failure != nil || got != "0:0 1:101 3:103" {
		t.Errorf("controlled: %s, produced %q", r.Failure.Summary(), got)
	}
}

// Keys not equal to themselves (NaN) come last, with their values at the
// snapshot; clear(m) during the loop stops it.
func TestMapRangeNaN(t *testing.T) {
	nan := math.NaN()
	run := func(clearAt int) []string {
		m := map[float64]int{nan: 7, 1: 1, 2: 2}
		m[nan] = 7
		var out []string
		for it := sim.MapRange(m); it.Next(); {
			k, v := it.Entry()
			out = append(out, fmt.Sprint(k, ":", v))
			if len(out) == clearAt {
				clear(m)
			}
		}
		return out
	}
	var all, cleared []string
	r := sched.Run(func() { all, cleared = run(-1), run(1) }, explore.Follow(nil), sched.Options{})
	if r.Failure != nil || fmt.Sprint(all) != "[1:1 2:2 NaN:7 NaN:7]" || fmt.Sprint(cleared) != "[1:1]" {
		t.Errorf("controlled: %s, produced %v, and %v with clear", r.Failure.Summary(), all, cleared)
	}
	for range 20 {
		all, cleared = run(-1), run(1)
		if len(all) != 4 || len(cleared) != 1 {
			t.Errorf("plain: produced %v, and %v with clear", all, cleared)
		}
	}
}

// In plain mode the order is Go's: random, each key once.
func TestMapRangePlain(t *testing.T) {
	m := map[int]bool{}
	for i := range 16 {
		m[i] = true
	}
	orders := map[string]bool{}
	for range 50 {
		ks := keysOf(m)
		if len(ks) != 16 {
			t.Fatalf("produced %v", ks)
		}
		slices.Sort(ks)
		if len(slices.Compact(ks)) != 16 {
			t.Fatalf("a key produced twice")
		}
		orders[fmt.Sprint(keysOf(m))] = true
	}
	if len(orders) < 2 {
		t.Errorf("50 loops in plain mode came in %d orders: not Go's random order", len(orders))
	}
}

// MapAll, the iterator of the loops of Go 1.23 on, orders the keys as
// MapRange does under control, and stops when the loop breaks; in plain
// mode it ranges over the map as Go does.
func TestMapAll(t *testing.T) {
	m := map[string]int{"a": 1, "b": 2, "c": 3, "d": 4}
	all := func(stop string) []string {
		var out []string
		for k, v := range sim.MapAll(m) {
			out = append(out, fmt.Sprint(k, v))
			if k == stop {
				break
			}
		}
		return out
	}
	var got, stopped []string
	s := &scripted{picks: []int{2, 3}}
	r := sched.Run(func() { got, stopped = all(""), all("a") }, s, sched.Options{})
	if r.Failure != nil || fmt.Sprint(got) != "[c3 d4 a1 b2]" || fmt.Sprint(stopped) != "[d4 a1]" {
		t.Errorf("controlled: %s, %v, and %v up to a", r.Failure.Summary(), got, stopped)
	}
	for range 20 {
		if got := all(""); len(got) != 4 {
			t.Errorf("plain: %v", got)
		}
	}
}

// A range over a map changes nothing another goroutine could see: a loop
// that polls a channel and ranges over a map at every turn is polling,
// and waits for the timer that ends it (GoKer's kubernetes_82239). Before,
// the loop ran 50,000 events, the millisecond of virtual time they take.
func TestMapRangePolling(t *testing.T) {
	m := map[string]int{"a": 1, "b": 2}
	r := sched.Run(func() {
		stop := sim.NewChan[struct{}](0)
		done := sim.NewChan[struct{}](0)
		sim.Go(func() {
			defer done.Close()
			for {
				if sim.Select(sim.OnRecv(stop, nil), sim.OnDefault(nil)) == 0 {
					return
				}
				for it := sim.MapRange(m); it.Next(); {
				}
			}
		})
		sim.Sleep(time.Millisecond)
		stop.Close()
		done.Recv()
	}, explore.Follow(nil), sched.Options{})
	if r.Failure != nil || r.Steps > 10000 {
		t.Errorf("%s, %d events", r.Failure.Summary(), r.Steps)
	}
}
