package sim_test

import (
	"reflect"
	"testing"

	"github.com/weftdev/weft/sim"
)

// level is a struct holding an atomic, as go.uber.org/zap's AtomicLevel.
type level struct {
	l  *sim.Int32
	mu sim.Mutex
}

// TestDeepEqualLeavesOutControlledState checks that two values holding
// sim's primitives are deeply equal when their plain parts are, though an
// execution gave one of them a state and not the other, and that
// DeepEqual answers as reflect.DeepEqual on plain values, cycles and
// unexported maps included.
func TestDeepEqualLeavesOutControlledState(t *testing.T) {
	a, b, c := level{l: new(sim.Int32)}, level{l: new(sim.Int32)}, level{l: new(sim.Int32)}
	var equal, differ bool
	r := runOnce(func() {
		a.l.Store(2)
		a.mu.Lock()
		a.mu.Unlock()
		b.l.Store(2)
		c.l.Store(3)
		equal = sim.DeepEqual(&a, &b)
		differ = sim.DeepEqual(&a, &c)
	})
	if r.Failure != nil {
		t.Fatal(r.Failure.Summary())
	}
	if !equal || differ {
		t.Errorf("DeepEqual of equal atomics %v (want true), of different ones %v (want false)", equal, differ)
	}

	type node struct {
		next *node
		m    map[string][]byte
		f    func()
		ch   chan int
	}
	n1, n2 := &node{m: map[string][]byte{"a": []byte("x")}}, &node{m: map[string][]byte{"a": []byte("x")}}
	n1.next, n2.next = n1, n2
	ch := make(chan int)
	for i, pair := range [][2]any{
		{n1, n2}, {node{ch: ch}, node{ch: ch}}, {node{ch: ch}, node{ch: make(chan int)}},
		{node{f: func() {}}, node{f: func() {}}}, {[]int{1, 2}, []int{1, 2}}, {[]int{1}, []int(nil)},
		{map[int]any{1: "a"}, map[int]any{1: "a"}}, {map[int]any{1: "a"}, map[int]any{1: 2}},
		{1, int64(1)}, {nil, nil}, {[2]string{"a"}, [2]string{"a"}}, {3.5, 3.5},
	} {
		if got, want := sim.DeepEqual(pair[0], pair[1]), reflect.DeepEqual(pair[0], pair[1]); got != want {
			t.Errorf("case %d: DeepEqual(%v, %v) = %v, reflect's %v", i, pair[0], pair[1], got, want)
		}
	}
}
