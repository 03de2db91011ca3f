package sched

import (
	"runtime/debug"
	"testing"
	"time"
)

// TestStdCreator: the escape of a goroutine the standard library started
// (net/http's, running a server's handler in cristalhq/hedgedhttp's
// tests) names its creator, and does not advise sim.Go, which its user
// cannot call; one that user code started keeps the advice.
func TestStdCreator(t *testing.T) {
	std, user := make(chan string), make(chan string)
	time.AfterFunc(0, func() { std <- string(debug.Stack()) })
	go func() { user <- string(debug.Stack()) }()
	if d := <-std; stdCreator(d) != "time.goFunc" {
		t.Errorf("stdCreator = %q, want time.goFunc, of\n%s", stdCreator(d), d)
	}
	if d := <-user; stdCreator(d) != "" {
		t.Errorf("stdCreator = %q, want none, of\n%s", stdCreator(d), d)
	}
}
