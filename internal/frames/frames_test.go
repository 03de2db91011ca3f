package frames

import (
	"runtime"
	"strings"
	"testing"
)

func TestWeftFunction(t *testing.T) {
	for fn, want := range map[string]bool{
		"github.com/weftdev/weft/sched.(*Controller).step":                 true,
		"github.com/weftdev/weft/sim.(*Var[...]).Store(0xc000012345, 0x1)": true,
		"github.com/weftdev/weft/sim/simctx.WithCancel":                    true,
		"github.com/weftdev/weft/record/light.(*recorder).WriteEnd":        true,
		"github.com/weftdev/weft/internal/gls.Self":                        true,
		"github.com/weftdev/weft/corpus.Load":                              true,
		"github.com/weftdev/weft/sim_test.TestStack.func1":                 false,
		"github.com/weftdev/weft/examples/abba.transfer":                   false,
		"github.com/weftdev/weft/testing/testdata/gotest/rerun.TestX":      false,
		"github.com/weftdev/weft/cmd/weft.main":                            false,
		"github.com/weftdev/weftish/sched.Run":                             false,
		"example.com/app.worker":                                           false,
		"github.com/weftdev/weft/internal/workload.(*Bank).Transfer.func2": true,
	} {
		if got := WeftFunction(fn); got != want {
			t.Errorf("WeftFunction(%q) = %v, want %v", fn, got, want)
		}
	}
}

func TestWeftFile(t *testing.T) {
	_, here, _, _ := runtime.Caller(0)
	root := strings.TrimSuffix(here, "/internal/frames/frames_test.go")
	for rel, want := range map[string]bool{
		"sched/controller.go":                true,
		"sim/simctx/context.go":              true,
		"internal/gls/gls.go":                true,
		"sched/controller_test.go":           false,
		"examples/abba/abba.go":              false,
		"testing/testdata/gotest/rerun/x.go": false,
		"cmd/weft/main.go":                   false,
	} {
		if got := WeftFile(root + "/" + rel); got != want {
			t.Errorf("WeftFile(%s) = %v, want %v", rel, got, want)
		}
	}
	if WeftFile("/home/user/app/sched/controller.go") {
		t.Error("a file of another module counted as weft's")
	}
}

func TestStdFile(t *testing.T) {
	pcs := make([]uintptr, 1)
	runtime.Callers(0, pcs) // runtime.Callers itself
	f, _ := runtime.CallersFrames(pcs).Next()
	if !StdFile(f.File) {
		t.Errorf("StdFile(%q) = false for runtime.Callers's own file", f.File)
	}
	_, here, _, _ := runtime.Caller(0)
	if StdFile(here) || StdFile("") {
		t.Errorf("StdFile(%q) or StdFile(\"\") is true", here)
	}
}

// TestRename checks that a test's body noted by NoteBody and its closures
// are named as go test names them, and nothing else is renamed.
func TestRename(t *testing.T) {
	NoteBody("example.com/p.TestX.func1")
	for fn, want := range map[string]string{
		"example.com/p.TestX.func1":     "example.com/p.TestX",
		"example.com/p.TestX.func1.2":   "example.com/p.TestX.func2",
		"example.com/p.TestX.func1.2.1": "example.com/p.TestX.func2.1",
		// A closure inlined into another (go.uber.org/fx's TestDeepStack).
		"example.com/p.TestX.func1.1.TestX.func1.1.1.2": "example.com/p.TestX.func1.TestX.func1.1.2",
		"example.com/p.TestX.func1.1.TestX.func10.1":    "example.com/p.TestX.func1.TestX.func10.1",
		"example.com/p.TestX.func10":                    "example.com/p.TestX.func10",
		"example.com/p.TestY.func1":                     "example.com/p.TestY.func1",
		"example.com/p.helper":                          "example.com/p.helper",
	} {
		if got := Rename(fn); got != want {
			t.Errorf("Rename(%q) = %q, want %q", fn, got, want)
		}
	}
}
