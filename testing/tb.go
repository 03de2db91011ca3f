package weft

import (
	"flag"
	"fmt"
	"regexp"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/weftdev/weft/sched"
)

// TB is what a test instrumented by weft test gets in place of *testing.T:
// the rewriter turns every *testing.T of a test file into *weft.TB and each
// TestXxx body into a body of Test. Its methods keep their meaning under
// weft's controller, from any goroutine of the execution: errors fail the
// execution, Fatal ends it, Cleanup functions run at its end, Run runs a
// subtest inside it, Skip ends it and skips the test. It embeds the test's
// testing.TB, so it can be passed where one is expected, and the methods it
// does not redefine (TempDir, Setenv, ...) are the test's own.
type TB struct {
	testing.TB
	t        *T
	name     string
	cleanups []func()
	skipped  *atomic.Pointer[string]
}

// Test runs body, a test's body, under weft's controller as Check does.
// Tests instrumented by weft test call it.
func Test(t *testing.T, body func(*TB), opts ...Option) {
	t.Helper()
	var skipped atomic.Pointer[string]
	opts = append([]Option{func(c *config) { c.command, c.inline = "weft test", true }}, opts...)
	Check(t, func(wt *T) {
		tb := &TB{TB: t, t: wt, name: t.Name(), skipped: &skipped}
		defer tb.runCleanups()
		body(tb)
	}, opts...)
	if msg := skipped.Load(); msg != nil && !t.Failed() {
		t.Skip(*msg)
	}
}

// Name returns the test's name; in a subtest, with the subtest's.
func (tb *TB) Name() string { return tb.name }

// Error records an error; the execution goes on.
func (tb *TB) Error(args ...any) { tb.t.Error(args...) }

// Errorf records an error; the execution goes on.
func (tb *TB) Errorf(format string, args ...any) { tb.t.Errorf(format, args...) }

// Fatal records an error and ends the execution.
func (tb *TB) Fatal(args ...any) { tb.t.Fatal(args...) }

// Fatalf records an error and ends the execution.
func (tb *TB) Fatalf(format string, args ...any) { tb.t.Fatalf(format, args...) }

// Fail marks the execution failed.
func (tb *TB) Fail() { tb.t.Fail() }

// FailNow marks the execution failed and ends it.
func (tb *TB) FailNow() { tb.t.FailNow() }

// Failed reports whether the execution has failed.
func (tb *TB) Failed() bool { return tb.t.Failed() }

// Log records a message for the report of a failing execution.
func (tb *TB) Log(args ...any) { tb.t.Log(args...) }

// Logf records a message for the report of a failing execution.
func (tb *TB) Logf(format string, args ...any) { tb.t.Logf(format, args...) }

// Helper marks the calling function as a test helper.
func (tb *TB) Helper() { tb.t.markHelper(2) }

// Skip ends the execution and marks the test skipped, with a message
// formatted as by fmt.Sprintln.
func (tb *TB) Skip(args ...any) { tb.skip(sprintln(args...)) }

// Skipf ends the execution and marks the test skipped.
func (tb *TB) Skipf(format string, args ...any) { tb.skip(fmt.Sprintf(format, args...)) }

// SkipNow ends the execution and marks the test skipped.
func (tb *TB) SkipNow() { tb.skip("skipped") }

// Skipped reports whether the test was skipped.
func (tb *TB) Skipped() bool { return tb.skipped.Load() != nil }

func (tb *TB) skip(msg string) {
	if tb.t.std != nil {
		tb.t.std.Skip(msg)
	}
	tb.skipped.CompareAndSwap(nil, &msg)
	if g := sched.Current(); g != nil {
		g.Abort()
	}
	runtime.Goexit()
}

// Cleanup registers f to run when the execution's body returns, last
// registered first.
func (tb *TB) Cleanup(f func()) {
	tb.t.mu.Lock()
	tb.cleanups = append(tb.cleanups, f)
	tb.t.mu.Unlock()
}

func (tb *TB) runCleanups() {
	for {
		tb.t.mu.Lock()
		n := len(tb.cleanups)
		if n == 0 {
			tb.t.mu.Unlock()
			return
		}
		f := tb.cleanups[n-1]
		tb.cleanups = tb.cleanups[:n-1]
		tb.t.mu.Unlock()
		f()
	}
}

// Run runs f as a subtest named name, inside the execution: its goroutines
// and events are part of the parent's schedule. As with testing.T.Run, a
// subtest that go test's -run or -skip flags leave out does not run. It
// reports whether the subtest passed.
func (tb *TB) Run(name string, f func(*TB)) bool {
	sub := &TB{TB: tb.TB, t: tb.t, name: tb.name + "/" + rewriteSubName(name), skipped: tb.skipped}
	if !selected(sub.name) {
		return true
	}
	before := tb.t.errorCount()
	func() {
		defer sub.runCleanups()
		f(sub)
	}()
	return tb.t.errorCount() == before
}

// rewriteSubName makes a subtest name as testing does: spaces become
// underscores.
func rewriteSubName(name string) string { return strings.ReplaceAll(name, " ", "_") }

// selected reports whether go test's -run and -skip flags select the test
// named name (its elements separated by slashes), as they select subtests.
func selected(name string) bool {
	elems := strings.Split(name, "/")
	match := func(flagName string) (bool, bool) {
		f := flag.Lookup(flagName)
		if f == nil || f.Value.String() == "" {
			return false, false
		}
		pats := splitPattern(f.Value.String())
		for i, p := range pats {
			if i >= len(elems) {
				break
			}
			if ok, err := regexp.MatchString(p, elems[i]); err != nil || !ok {
				return false, true
			}
		}
		return true, true
	}
	if ok, set := match("test.run"); set && !ok {
		return false
	}
	if ok, set := match("test.skip"); set && ok {
		return false
	}
	return true
}

// splitPattern splits a -run pattern at the slashes outside brackets and
// parentheses, as go test does.
func splitPattern(p string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '[', '(':
			depth++
		case ']', ')':
			depth--
		case '/':
			if depth == 0 {
				out = append(out, p[start:i])
				start = i + 1
			}
		}
	}
	return append(out, p[start:])
}

// Parallel does nothing: an instrumented test that calls t.Parallel() as
// its first statement runs in parallel with the others, since the
// rewriter leaves that call on the test's own *testing.T; executions of
// one test are serialized by weft.
func (tb *TB) Parallel() {}
