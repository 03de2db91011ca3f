package lineage

import "testing"

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
