package signal

import (
	"os"
	"testing"
)

// TestFixed waits in a goroutine, as oklog/run's TestSignalError does: the
// loop that signal.Notify starts outlives the first execution, and is no
// escape.
func TestFixed(t *testing.T) {
	test := make(chan os.Signal, 1)
	done := make(chan os.Signal)
	go func() { done <- Wait(test) }()
	test <- os.Interrupt
	if s := <-done; s != os.Interrupt {
		t.Fatalf("got %v, want an interrupt", s)
	}
}
