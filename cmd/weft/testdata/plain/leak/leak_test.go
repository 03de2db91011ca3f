package leak

import (
	"testing"
	"time"
)

func slow() string {
	time.Sleep(50 * time.Millisecond)
	return "answer"
}

func TestBug(t *testing.T)   { Fetch(slow, 10*time.Millisecond, 0) }
func TestFixed(t *testing.T) { Fetch(slow, 10*time.Millisecond, 1) }
