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
// are pkg.TestX.func2 (see NoteBody). A closure inlined into another
// names its callee after its caller, without the package's path:
// pkg.TestX.func1.1.TestX.func1.1.1.2 is pkg.TestX.func1.TestX.func1.1.2
// (go.uber.org/fx's TestDeepStack). Other names are returned as they are.
func Rename(fn string) string {
	for i := 0; ; {
		j := strings.Index(fn[i:], ".func1")
		if j < 0 {
			return fn
		}
		end := i + j + len(".func1")
		if _, ok := bodies.Load(fn[:end]); ok {
			outer := fn[:i+j]
			if r, ok := renamed(outer, fn[end:]); ok {
				return renameInlined(r, len(outer), outer[packagePrefix(outer):])
			}
		}
		i = end
	}
}

// renamed returns the name of a test's body, or of one of its closures,
// as go test names it: outer, the test function's name, then rest, what
// follows the body's name; false if rest does not name a closure of it.
func renamed(outer, rest string) (string, bool) {
	switch {
	case rest == "":
		return outer, true
	case len(rest) > 1 && rest[0] == '.' && rest[1] >= '0' && rest[1] <= '9':
		return outer + ".func" + rest[1:], true
	case rest[0] == '.':
		return outer + rest, true
	}
	return "", false
}

// renameInlined renames, in fn from from on, the names of the closures
// of test's body that follow a '.' without their package's path.
func renameInlined(fn string, from int, test string) string {
	key := "." + test + ".func1"
	for i := from; ; {
		j := strings.Index(fn[i:], key)
		if j < 0 {
			return fn
		}
		start, end := i+j, i+j+len(key)
		if r, ok := renamed(fn[:start]+"."+test, fn[end:]); ok {
			fn = r
			i = start + 1 + len(test)
			continue
		}
		i = end
	}
}

// packagePrefix returns the length of the package's path and its '.' at
// the start of a function's name.
func packagePrefix(fn string) int {
	slash := strings.LastIndex(fn, "/") + 1
	if dot := strings.Index(fn[slash:], "."); dot >= 0 {
		return slash + dot + 1
	}
	return 0
}
