package weft_test

import (
	"strings"
	"testing"

	"github.com/weftdev/weft/sim"
	weft "github.com/weftdev/weft/testing"
)

// TestStackNamesTheTestFunction checks that, in the dump weft test gives
// for runtime.Stack, the test's body is the test function itself, as go
// test shows it, not the closure weft runs (TestX.func1), with go test's
// frames below it and its goroutine's id; and that the closures in the
// body are named as go test names them (TestX.func1.1 is TestX.func1):
// goleak's TestCurrent looks for its test function in the stack, and
// TestCurrentCreatedBy for the closure its go statement runs.
func TestStackNamesTheTestFunction(t *testing.T) {
	var d string
	weft.Test(t, func(t *weft.TB) {
		ch := sim.NewChan[int](0)
		sim.Go(func() { ch.Recv() })
		buf := make([]byte, 1<<16)
		d = string(buf[:sim.Stack(buf, true)])
		ch.Send(1)
	}, weft.CorpusDir(t.TempDir()), weft.Iterations(1))
	const test = "github.com/weftdev/weft/testing_test.TestStackNamesTheTestFunction"
	gs := strings.Split(strings.TrimSpace(d), "\n\n")
	body := strings.Split(gs[0], "\n")
	if len(body) != 7 || !strings.HasPrefix(body[1], test+"(") || !strings.HasPrefix(body[3], "testing.tRunner(") ||
		!strings.HasPrefix(body[len(body)-2], "created by testing.(*T).Run in goroutine ") {
		t.Errorf("the body's trace, want %s called by testing.tRunner:\n%s", test, d)
	}
	id := strings.Fields(body[0])[1]
	found := false
	for _, g := range gs[1:] {
		lines := strings.Split(g, "\n")
		if len(lines) == 5 && lines[1] == test+".func1()" && lines[3] == "created by "+test+" in goroutine "+id {
			found = true
		}
	}
	if !found || strings.Contains(d, test+".func1.1") {
		t.Errorf("the goroutine of the go statement, want %s.func1 created by %s in goroutine %s:\n%s", test, test, id, d)
	}
}

// TestStackShowsASubtestAsGoTestDoes checks a subtest's trace in the dump
// weft test gives for runtime.Stack: its function named as go test names
// it, none of weft's code (its TB.Run's closure, inlined into the body, is
// named after the body), and testing.(*T).Run as its creator, in the
// body's goroutine.
func TestStackShowsASubtestAsGoTestDoes(t *testing.T) {
	var d string
	weft.Test(t, func(t *weft.TB) {
		t.Run("sub", func(t *weft.TB) {
			buf := make([]byte, 1<<16)
			d = string(buf[:sim.Stack(buf, true)])
		})
	}, weft.CorpusDir(t.TempDir()), weft.Iterations(1))
	const test = "github.com/weftdev/weft/testing_test.TestStackShowsASubtestAsGoTestDoes"
	gs := strings.Split(strings.TrimSpace(d), "\n\n")
	sub := strings.Split(gs[0], "\n")
	var body []string
	for _, g := range gs[1:] {
		if strings.Contains(g, "\n"+test+"(") {
			body = strings.Split(g, "\n")
		}
	}
	if body == nil {
		t.Fatalf("no goroutine runs the test's body:\n%s", d)
	}
	want := "created by testing.(*T).Run in goroutine " + strings.Fields(body[0])[1]
	if len(sub) != 4 || !strings.HasPrefix(sub[1], test+".func1(") || sub[3] != want {
		t.Errorf("the subtest's trace, want %s.func1 %s:\n%s", test, want, d)
	}
}
