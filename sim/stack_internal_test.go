package sim

import (
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestTraceShowsTestingRun checks that a test's body waiting in weft's
// TB.Run for its subtest shows testing.(*T).Run on top, as go test's dump
// does: goleak takes a goroutine with it on top for the test runner's, and
// reported the body of goleak's own TestFind, waiting for its subtest, as
// a leak.
func TestTraceShowsTestingRun(t *testing.T) {
	g := strings.Join([]string{
		"goroutine 7 [chan receive]:",
		weftPrefix + "sched.(*Controller).step(0x1)",
		"\t/w/sched/controller.go:845 +0x7a7",
		weftPrefix + "sim.(*Chan[...]).Recv(0x2)",
		"\t/w/sim/chan.go:100 +0x10",
		weftPrefix + "testing.(*TB).Run(0x3, {0x4, 0x5}, 0x6)",
		"\t/w/testing/tb.go:150 +0x20",
		"example.com/p.TestFind.func1(0x7)",
		"\t/src/p/p_test.go:44 +0x30",
		weftPrefix + "sched.(*Controller).goroutine(0x8, 0x9)",
		"\t/w/sched/controller.go:658 +0xd1",
		"created by " + weftPrefix + "sched.acquireWorker in goroutine 9",
		"\t/w/sched/worker.go:113 +0x18c",
	}, "\n")
	out, ok := goroutineTrace([]byte(g))
	lines := strings.Split(string(out), "\n")
	if !ok || len(lines) < 4 || lines[1] != "testing.(*T).Run(0x3, {0x4, 0x5}, 0x6)" ||
		!strings.HasPrefix(lines[3], "example.com/p.TestFind.func1(") {
		t.Errorf("trace (kept %v):\n%s", ok, out)
	}
}

// TestRenameShowsTheTestFunction checks the names a dump gives to the
// test's body and its closures, which weft runs as closures of the test
// function: what go test names them.
func TestRenameShowsTheTestFunction(t *testing.T) {
	d := &dumper{outer: "example.com/p.TestX", body: "example.com/p.TestX.func1"}
	for in, want := range map[string]string{
		"example.com/p.TestX.func1(0x1)":            "example.com/p.TestX(0x1)",
		"example.com/p.TestX.func1.2()":             "example.com/p.TestX.func2()",
		"example.com/p.TestX.func1.2.1(...)":        "example.com/p.TestX.func2.1(...)",
		"example.com/p.TestX.func1.deferwrap1()":    "example.com/p.TestX.deferwrap1()",
		"created by example.com/p.TestX.func1.3 in": "created by example.com/p.TestX.func3 in",
		"example.com/p.TestX.func12()":              "example.com/p.TestX.func12()",
		"example.com/p.TestXY.func1()":              "example.com/p.TestXY.func1()",
		"example.com/q.helper.func1()":              "example.com/q.helper.func1()",
	} {
		if got := d.rename(in); got != want {
			t.Errorf("rename(%q) = %q, want %q", in, got, want)
		}
	}
	for name, want := range map[string]string{
		"example.com/p.TestX.func2":     "example.com/p.TestX",
		"example.com/p.TestX.func2.1":   "example.com/p.TestX.func2",
		"example.com/p.(*T).run.func1":  "example.com/p.(*T).run",
		"example.com/p.F[...].func3":    "example.com/p.F[...]",
		"example.com/p.waitForDone":     "",
		"example.com/p.(*blockedG).run": "",
	} {
		if got, _ := enclosing(name); got != want {
			t.Errorf("enclosing(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestHeaderID checks the id and state read from a goroutine's header.
func TestHeaderID(t *testing.T) {
	for in, want := range map[string]struct {
		id    int64
		state string
	}{
		"goroutine 7 [chan receive]:":                    {7, "chan receive"},
		"goroutine 12 [select, 2 minutes]:":              {12, "select, 2 minutes"},
		"goroutine 3 gp=0xc000 m=0 mp=0xc100 [running]:": {3, "running"},
	} {
		id, state, ok := headerID([]byte(in))
		if !ok || id != want.id || state != want.state {
			t.Errorf("headerID(%q) = %d, %q, %v; want %d, %q", in, id, state, ok, want.id, want.state)
		}
	}
}

// TestTraceKeepsAProgramGoroutineWithWeftInlined checks that a goroutine
// of the program whose top frame is weft's code inlined into the
// program's function (named after that function, in weft's file) stays in
// the dump, without that frame: it is not one of weft's goroutines.
func TestTraceKeepsAProgramGoroutineWithWeftInlined(t *testing.T) {
	_, here, _, _ := runtime.Caller(0)
	g := strings.Join([]string{
		"goroutine 9 [chan receive]:",
		"example.com/p.F.(*Map[...]).Range.func1(...)",
		"\t" + filepath.Join(filepath.Dir(here), "map.go") + ":100",
		"example.com/p.F(0x1)",
		"\t/src/p/p.go:10 +0x20",
		"created by example.com/p.main in goroutine 1",
		"\t/src/p/p.go:5 +0x10",
	}, "\n")
	out, ok := goroutineTrace([]byte(g))
	lines := strings.Split(string(out), "\n")
	if !ok || len(lines) != 5 || lines[1] != "example.com/p.F(0x1)" {
		t.Errorf("trace (kept %v):\n%s", ok, out)
	}
}
