package goleak

import (
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestStopped(t *testing.T) {
	defer goleak.VerifyNone(t)
	l := Start()
	time.Sleep(5 * time.Millisecond)
	l.Stop()
}

func TestFind(t *testing.T) {
	l := Start()
	l.Stop()
	if err := goleak.Find(); err != nil {
		t.Fatal(err)
	}
}
