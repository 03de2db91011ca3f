package lineage

import (
	"strconv"
	"testing"
)

func TestNames(t *testing.T) {
	var root, second Children
	if got := root.Next(Root); got != "0.1" {
		t.Fatalf("first child of the root: %q, want 0.1", got)
	}
	s := root.Next(Root)
	if s != "0.2" {
		t.Fatalf("second child of the root: %q, want 0.2", s)
	}
	if got := second.Next(s); got != "0.2.1" {
		t.Fatalf("first child of 0.2: %q, want 0.2.1", got)
	}
	for range 8 {
		root.Next(Root)
	}
	if got := root.Next(Root); got != "0.11" {
		t.Fatalf("eleventh child of the root: %q, want 0.11", got)
	}
}

// The names of the root's first children are made once; past them, and
// for other goroutines' children, they are made as asked, the same way.
func TestRootChildrenMadeOnce(t *testing.T) {
	var root, child Children
	for i := 1; i <= 100; i++ {
		if got, want := root.Next(Root), Root+"."+strconv.Itoa(i); got != want {
			t.Fatalf("child %d of the root: %q, want %q", i, got, want)
		}
		if got, want := child.Next("0.3"), "0.3."+strconv.Itoa(i); got != want {
			t.Fatalf("child %d of 0.3: %q, want %q", i, got, want)
		}
	}
	allocs := testing.AllocsPerRun(100, func() {
		var c Children
		for range 64 {
			c.Next(Root)
		}
	})
	if allocs != 0 {
		t.Fatalf("naming the root's first 64 children allocates %v times", allocs)
	}
}
