package oldgo

import (
	"fmt"
	"testing"
)

func TestCaptured(t *testing.T) {
	if got := fmt.Sprint(Captured()); got != "[3 3 3]" {
		t.Errorf("Captured = %s", got)
	}
}

func TestRanged(t *testing.T) {
	if got := fmt.Sprint(Ranged()); got != "[2 2 2]" {
		t.Errorf("Ranged = %s", got)
	}
}

func TestConstraints(t *testing.T) {
	if Plus() != 1 || Build() != 2 {
		t.Error("Plus or Build")
	}
}

func TestLabeled(t *testing.T) {
	if got := Labeled(); got != 1 {
		t.Errorf("Labeled = %d", got)
	}
}
