// Package logf logs from a test, and from goroutines after the test
// returned: weft test shows the lines as go test does.
package logf

import "testing"

func TestLogf(t *testing.T) { t.Logf("hello from the test body") }

// A goroutine logs after the test has completed: plain go test panics
// "Log in goroutine after TestLogAfterEnd has completed: late" when the
// goroutine gets to run that late; weft test reports that panic.
func TestLogAfterEnd(t *testing.T) {
	release := make(chan bool)
	go func() { <-release; t.Logf("late") }()
	close(release)
}

func TestSkipped(t *testing.T) {
	t.Logf("before the skip")
	t.Skip("not today")
}
