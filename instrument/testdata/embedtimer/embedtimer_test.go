package embedtimer

import (
	"testing"
	"time"
)

func TestReal(t *testing.T) {
	tm := NewTimer(time.Millisecond)
	<-tm.Chan()
	tk := NewTicker(time.Millisecond)
	defer tk.Stop()
	<-tk.Chan()
	<-tk.Chan()
}

func TestFake(t *testing.T) {
	tm, fire := NewFake()
	go fire(time.Unix(1, 0))
	if got := <-tm.Chan(); !got.Equal(time.Unix(1, 0)) {
		t.Fatalf("fired at %v", got)
	}
}
