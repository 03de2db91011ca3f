package reflectchan

import "testing"

func TestWrap(t *testing.T) {
	raw := make(chan int, 2)
	out := Wrap(raw)
	raw <- 1
	raw <- 2
	close(raw)
	if a, b := <-out, <-out; a != 1 || b != 2 {
		t.Fatalf("received %v, %v", a, b)
	}
	if _, ok := <-out; ok {
		t.Fatal("not closed")
	}
}

func TestUnwrap(t *testing.T) {
	in, raw := make(chan any), make(chan int)
	Unwrap(in, raw)
	go func() {
		in <- 1
		in <- 2
		close(in)
	}()
	if a, b := <-raw, <-raw; a != 1 || b != 2 {
		t.Fatalf("received %d, %d", a, b)
	}
	if _, ok := <-raw; ok {
		t.Fatal("not closed")
	}
}

func TestTry(t *testing.T) {
	ch := make(chan int, 2)
	if !Offer(ch, 1) || !Offer(ch, 2) || Offer(ch, 3) {
		t.Fatal("offers")
	}
	if n := Drain(ch); n != 2 {
		t.Fatalf("drained %d", n)
	}
}
