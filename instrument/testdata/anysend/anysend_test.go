package anysend

import "testing"

func TestBatcher(t *testing.T) {
	b := New()
	for i := range 3 {
		b.In() <- i
	}
	b.In() <- 3
	Feed([]int{4}, b)
	if n := b.Len(); n > 5 || b.Types() != "chan interface {} chan interface {}" {
		t.Fatalf("length %d", n)
	}
	done := make(chan []any)
	go func() {
		var all []any
		for batch := range b.Out() {
			all = append(all, batch.([]any)...)
		}
		done <- all
	}()
	b.Close()
	if got := <-done; len(got) != 5 {
		t.Fatalf("drained %v", got)
	}
}
