package recvkey

import (
	"testing"
	"time"
)

func TestTick(t *testing.T) {
	c := New()
	if Describe(c) != "{}" {
		t.Fatalf("described as %q", Describe(c))
	}
	start := time.Now()
	if got := First(c, time.Second); got.Sub(start) < time.Second {
		t.Fatalf("ticked after %v", got.Sub(start))
	}
}
