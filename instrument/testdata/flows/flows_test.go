package flows

import "testing"

func TestDoner(t *testing.T) {
	Wait(NewJob(1))
}

func TestQueue(t *testing.T) {
	q := NewQueue[string](1)
	q.Put("x")
	if v, ok := q.Get(); !ok || v != "x" {
		t.Errorf("Get = %q, %v", v, ok)
	}
	if _, ok := q.Get(); ok {
		t.Error("Get from an empty queue")
	}
}

func TestRelay(t *testing.T) {
	if got := Relay(); got != 9 {
		t.Errorf("Relay = %d", got)
	}
}
