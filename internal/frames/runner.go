package frames

import (
	"runtime"
	"strings"
	"sync"
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

// bodies holds the names of the closures that weft test runs as tests'
// bodies (pkg.TestX.func1), as NoteBody noted them.
var bodies sync.Map

// NoteBody notes the function name of a test's body, the closure of the
// test function TestX that weft test's rewrite runs (pkg.TestX.func1), for
// Rename.
func NoteBody(name string) {
	if strings.HasSuffix(name, ".func1") {
		bodies.Store(name, true)
	}
}

// Rename returns a function's name as go test names it: weft test runs a
// test's body as a closure of the test function, pkg.TestX.func1, which
// is pkg.TestX itself under go test, and its closures, pkg.TestX.func1.2,
// are pkg.TestX.func2 (see NoteBody). Other names are returned as they are.
func Rename(fn string) string {
	for i := 0; ; {
		j := strings.Index(fn[i:], ".func1")
		if j < 0 {
			return fn
		}
		end := i + j + len(".func1")
		if _, ok := bodies.Load(fn[:end]); ok {
			outer, rest := fn[:i+j], fn[end:]
			switch {
			case rest == "":
				return outer
			case len(rest) > 1 && rest[0] == '.' && rest[1] >= '0' && rest[1] <= '9':
				return outer + ".func" + rest[1:]
			case rest[0] == '.':
				return outer + rest
			}
		}
		i = end
	}
}
