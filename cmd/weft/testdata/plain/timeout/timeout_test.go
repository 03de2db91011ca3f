package timeout

import (
	"testing"
	"time"
)

func work() int {
	time.Sleep(30 * time.Millisecond) // usually fast enough on a laptop
	return 42
}

func TestBug(t *testing.T) {
	if got := Compute(work, 20*time.Millisecond); got != 42 {
		t.Errorf("Compute = %d", got)
	}
}

func TestFixed(t *testing.T) {
	if got := Compute(work, time.Second); got != 42 {
		t.Errorf("Compute = %d", got)
	}
}
