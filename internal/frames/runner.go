package frames

import (
	"runtime"
	"sync/atomic"
)

// testRunner is a return PC in testing.tRunner, as NoteTestRunner found it.
var testRunner atomic.Uintptr

// NoteTestRunner notes a return PC in testing.tRunner, taken from the
// calling goroutine's stack (a test's goroutine under go test), once: a
// controlled goroutine runs a test's body on weft's runner, and the stack
// that sim.Callers shows for it has testing.tRunner where weft's runner is.
func NoteTestRunner() {
	if testRunner.Load() != 0 {
		return
	}
	var pcs [64]uintptr
	n := runtime.Callers(2, pcs[:])
	for _, pc := range pcs[:n] {
		if f := runtime.FuncForPC(pc - 1); f != nil && f.Name() == "testing.tRunner" {
			testRunner.Store(pc)
			return
		}
	}
}

// TestRunner returns the return PC in testing.tRunner that NoteTestRunner
// noted, or 0 if it noted none.
func TestRunner() uintptr { return testRunner.Load() }
