package maprangefor

import (
	"slices"
	"sort"
	"testing"
)

func TestForms(t *testing.T) {
	if got := Keys(map[string]int{"b": 1, "a": 2}); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("Keys = %v", got)
	}
	one, two := 1, 2
	var seen []string
	for _, f := range Closures(Conns{{"h", "1"}: &one, {"h", "2"}: &two}) {
		seen = append(seen, f())
	}
	sort.Strings(seen)
	if !slices.Equal(seen, []string{"h:1=1", "h:2=2"}) {
		t.Errorf("Closures saw %v", seen)
	}
	if sum, last := Total(map[int]int{1: 10, 2: 20}); sum != 30 || (last != 1 && last != 2) {
		t.Errorf("Total = %d, %v", sum, last)
	}
	if n := Labeled(map[int][]int{1: {1, 2}, 2: {-1, 5}}); n != 2 {
		t.Errorf("Labeled = %d, want 2", n)
	}
	if k, _ := Find(map[string]int{"x": 1, "y": 2}, 2); k != "y" {
		t.Errorf("Find = %q", k)
	}
	if n := Count(map[Addr]bool{{"a", "1"}: true, {"b", "2"}: false}); n != 2 {
		t.Errorf("Count = %d", n)
	}
	if vs := Values(Conns{{"a", "1"}: &one}); len(vs) != 1 || vs[0] != &one {
		t.Errorf("Values = %v", vs)
	}
	if s := Sum(map[string]float64{"a": 1.5, "b": 2}); s != 3.5 {
		t.Errorf("Sum = %v", s)
	}
	a, b := make(chan int, 1), make(chan int, 1)
	a <- 1
	b <- 2
	if got := Drain(map[string]chan int{"a": a, "b": b}); !slices.Equal(got, []int{1, 2}) {
		t.Errorf("Drain = %v", got)
	}
	if n, calls := Once(); n != 6 || calls != 1 {
		t.Errorf("Once = %d with %d calls", n, calls)
	}
	if n := Deleting(map[int]int{1: 1, 2: 2, 3: 3, 4: 4}); n != 1 {
		t.Errorf("Deleting produced %d entries, want 1", n)
	}
}
