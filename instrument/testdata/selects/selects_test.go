package selects

import (
	"testing"
	"time"

	"example.com/selects/ext"
)

func TestBlank(t *testing.T) {
	ch, done := make(chan int), make(chan bool)
	close(ch)
	if Blank(ch, done) {
		t.Error("ok from a closed channel")
	}
}

func TestFuncs(t *testing.T) {
	ch := make(chan func() string, 1)
	if !Funcs(ch) || (<-ch)() != "a raw\nstring" {
		t.Error("the function was not sent")
	}
}

func TestTick(t *testing.T) {
	if Tick().IsZero() {
		t.Error("zero tick")
	}
}

func TestTimerField(t *testing.T) {
	if !(&S{}).Wait(make(chan struct{})) {
		t.Error("the timer did not fire")
	}
}

func TestMixed(t *testing.T) {
	if !Mixed(make(chan struct{})) {
		t.Error("the ready channel was not taken")
	}
}

func TestClocked(t *testing.T) {
	c := &ext.Clock{}
	results := make(chan int)
	go func() {
		time.Sleep(time.Millisecond) // virtual time moves while Clocked polls
		c.Add(10)
	}()
	if v, ok := Clocked(c, results); !ok || v != 10 {
		t.Errorf("Clocked = %d, %v", v, ok)
	}
}

func TestOutside(t *testing.T) {
	if !Outside(make(chan struct{})) {
		t.Error("the outside channel was not taken")
	}
}
