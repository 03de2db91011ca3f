package rangecall

import "testing"

func TestRangeCall(t *testing.T) {
	s := &Set{vs: []int{1, 2, 3}}
	if n := s.Size(); n != 3 {
		t.Fatalf("Size = %d, want 3", n)
	}
	if sum := s.Sum(); sum != 6 {
		t.Fatalf("Sum = %d, want 6", sum)
	}
	if n := s.Count(); n != 3 {
		t.Fatalf("Count = %d, want 3", n)
	}
}
