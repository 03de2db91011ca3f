package values

import (
	"fmt"
	"strings"
	"testing"
)

func TestSizes(t *testing.T) {
	if got := fmt.Sprint(Sizes()); got != "[1 2 3 2 5]" {
		t.Errorf("Sizes = %s", got)
	}
}

func TestReflected(t *testing.T) {
	got := Reflected()
	if !strings.Contains(got[0], "chan bool") || got[1] != "chan int" || got[2] != "<-chan string" || got[3] != "1" {
		t.Errorf("Reflected = %q", got)
	}
}

func TestPooled(t *testing.T) {
	if Pooled() != 3 {
		t.Error("Pooled")
	}
}
