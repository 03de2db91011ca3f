package funcany

import (
	"sync/atomic"
	"testing"
)

func TestChanArgument(t *testing.T) {
	ch := make(chan int, 1)
	if err := Call(func(c chan int) { c <- 1 }, ch); err != nil {
		t.Fatal(err)
	}
	if v := <-ch; v != 1 {
		t.Fatalf("received %d", v)
	}
}

// TestAtomicArgument: a function of an *atomic.Bool and the *atomic.Bool,
// as go.uber.org/fx's tests hand them to fx.Annotate and fx.Supply: both
// stay weft's, and reflect finds their types the same.
func TestAtomicArgument(t *testing.T) {
	var called atomic.Bool
	if err := Call(func(b *atomic.Bool) { b.Store(true) }, &called); err != nil {
		t.Fatal(err)
	}
	if !called.Load() {
		t.Fatal("not called")
	}
}
