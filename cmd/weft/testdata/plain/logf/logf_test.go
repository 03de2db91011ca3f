// Package logf logs from a test, and from a goroutine after the test has
// returned: weft test shows the lines as go test does.
package logf

import "testing"

func TestLogf(t *testing.T) { t.Logf("hello from the test body") }

// A goroutine logs after the test has returned: plain go test panics
// "Log in goroutine after TestLogAfterEnd has completed" when the goroutine
// gets to run in time.
func TestLogAfterEnd(t *testing.T) {
	release := make(chan bool)
	go func() { <-release; t.Logf("late") }()
	close(release)
}

func TestSkipped(t *testing.T) {
	t.Logf("before the skip")
	t.Skip("not today")
}
