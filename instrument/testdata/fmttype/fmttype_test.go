package fmttype

import "testing"

func TestSubscribe(t *testing.T) {
	s := NewMemory("a", "b")
	if n := Name(s); n != "fmttype.memory" {
		t.Fatalf("name %q", n)
	}
	if p := Printed(make(chan int)); p != "chan int" {
		t.Fatalf("printed %q", p)
	}
	ch, err := s.Subscribe("t")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for v := range ch {
		got = append(got, v)
	}
	if len(got) != 2 || got[1] != "t:b" {
		t.Fatalf("got %v", got)
	}
}
