package anyflow

import (
	"fmt"
	"testing"

	"example.com/anyflow/instrpool"
)

// TestAssert hands a channel to a pool that may show it, whose function
// asserts it back.
func TestAssert(t *testing.T) {
	p := instrpool.New(wait)
	ch := make(chan struct{})
	if err := p.Invoke(ch); err != nil {
		t.Fatal(err)
	}
	close(ch)
	p.Wait()
	p.Close()
	if err := p.Invoke(ch); err == nil {
		t.Error("no error from a closed pool")
	}
}

// TestSwitch is TestAssert with a type switch, through a function
// literal.
func TestSwitch(t *testing.T) {
	p := instrpool.New(func(arg any) { waitSwitch(arg) })
	ch := make(chan struct{})
	if err := p.Invoke(ch); err != nil {
		t.Fatal(err)
	}
	close(ch)
	p.Wait()
	p.Close()
}

// showAndWait shows its argument, then waits on it: the channel reaches
// fmt on the side of the function, not of the pool.
func showAndWait(arg any) {
	if fmt.Sprint(arg) == "" {
		panic("no text")
	}
	<-arg.(chan struct{})
}

// TestShownByFunc hands a channel to a pool that never shows it, whose
// function shows it and asserts it back.
func TestShownByFunc(t *testing.T) {
	q := instrpool.NewQuiet(showAndWait)
	ch := make(chan struct{})
	q.Invoke(ch)
	close(ch)
	q.Wait()
	q.Close()
}

// TestBox puts channels in a map and a slice of another package, which
// shows them, and asserts them back.
func TestBox(t *testing.T) {
	var b instrpool.Box
	ch := make(chan int, 1)
	b.Put("ch", ch)
	go func() { ch <- 1 }()
	if v := <-b.Get("ch").(chan int); v != 1 {
		t.Errorf("got %d from the map", v)
	}
	go func() { ch <- 2 }()
	switch c := b.Last().(type) {
	case chan int:
		if v := <-c; v != 2 {
			t.Errorf("got %d from the slice", v)
		}
	default:
		t.Errorf("%T in the slice", c)
	}
	if b.String() == "" {
		t.Error("no text")
	}
}

// TestRun waits for a function run by another package.
func TestRun(t *testing.T) {
	<-instrpool.Run(func() (any, error) { return 1, nil })
}
