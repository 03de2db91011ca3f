package sim

import (
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
