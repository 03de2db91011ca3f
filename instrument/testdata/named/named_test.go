package named

import "testing"

func TestSignal(t *testing.T) {
	if Closed() == nil {
		t.Error("nil signal")
	}
}

func TestSem(t *testing.T) {
	if got := Acquire(3); got != 3 {
		t.Errorf("held %d", got)
	}
}

func TestPut(t *testing.T) {
	if got := Put(7); got != 7 {
		t.Errorf("Put = %d", got)
	}
}

func TestImplicit(t *testing.T) {
	if n, ok := Implicit(); n != 2 || !ok {
		t.Errorf("Implicit = %d, %v", n, ok)
	}
	a, b := pair()
	a <- struct{}{}
	<-b
	s := make(sem, 2)
	s <- struct{}{}
	if ranges(s) != 1 || !convert(make(chan struct{})) || s.String() != "0" {
		t.Error("ranges, convert or String")
	}
}

func TestGeneric(t *testing.T) {
	q := make(Queue[int], 1)
	Push(q, 5)
	if <-q != 5 {
		t.Error("Push")
	}
}

func TestPrint(t *testing.T) {
	if got := Print(); got != "named.printed" {
		t.Errorf("%%T = %q", got)
	}
}
