package sched

import (
	"runtime/debug"
	"testing"
	"time"
)

// TestStdCreator: a goroutine the standard library started (net/http's,
// running a server's handler in cristalhq/hedgedhttp's tests) is told
// from one that user code started, which keeps its parent's identity (and
// an escape's advice to use sim.Go): the first leaves the execution (see
// Controller.stray).
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
