package weft_test

import (
	"strings"
	"testing"

	"github.com/weftdev/weft/sim"
	weft "github.com/weftdev/weft/testing"
)

// functions returns the functions of the frames of pcs, as sim.Frames
// names them.
func functions(pcs []uintptr) []string {
	var fns []string
	frames := sim.CallersFrames(pcs)
	for {
		f, more := frames.Next()
		fns = append(fns, f.Function)
		if !more {
			return fns
		}
	}
}

// TestCallersShowTheStackAsGoTest checks the stack sim.Callers,
// sim.Caller and sim.CallersFrames give, which weft test calls for
// runtime's: a test's body called by testing.tRunner, and a goroutine's
// function by runtime.goexit alone, without weft's frames, and the body
// and its closures named as go test names them, as under go test
// (go.uber.org/zap's TestLoggerAddCallerFunction skips frames up to
// runtime.goexit; TestStacktraceWithCallerSkip looks for the test function
// with no closure's "." after it).
func TestCallersShowTheStackAsGoTest(t *testing.T) {
	var body, fromGo []string
	var file string
	weft.Test(t, func(t *weft.TB) {
		pcs := make([]uintptr, 32)
		body = functions(pcs[:sim.Callers(1, pcs)])
		_, file, _, _ = sim.Caller(1)
		done := sim.NewChan[int](0)
		sim.Go(func() {
			fromGo = functions(pcs[:sim.Callers(1, pcs)])
			done.Send(1)
		})
		done.Recv()
	}, weft.CorpusDir(t.TempDir()), weft.Iterations(1))
	const test = "github.com/weftdev/weft/testing_test.TestCallersShowTheStackAsGoTest"
	if len(body) != 3 || body[0] != test ||
		body[1] != "testing.tRunner" || body[2] != "runtime.goexit" {
		t.Errorf("the body's stack %q, want the body, testing.tRunner, runtime.goexit", body)
	}
	if !strings.HasSuffix(file, "/testing/testing.go") {
		t.Errorf("Caller(1) in the body is in %s, want testing.tRunner's testing.go", file)
	}
	if len(fromGo) != 2 || fromGo[0] != test+".func1" || fromGo[1] != "runtime.goexit" {
		t.Errorf("a goroutine's stack %q, want its function, runtime.goexit", fromGo)
	}
}
