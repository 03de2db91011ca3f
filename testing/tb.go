package weft

import (
	"context"
	"flag"
	"fmt"
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/weftdev/weft/internal/frames"
	"github.com/weftdev/weft/sim/simctx"
)

// TB is what a test instrumented by weft test gets in place of *testing.T:
// the rewriter turns every *testing.T of a test file into *weft.TB and each
// TestXxx body into a body of Test. Its methods keep their meaning under
// weft's controller, from any goroutine of the execution: errors fail the
// execution, Fatal ends it (or, from a subtest's own goroutine, the
// subtest), Cleanup functions run at its end, Run runs a subtest inside
// it, Skip ends it and skips the test (or the subtest). What the test logs,
// and its subtests, appear in go test's output as under go test. It embeds
// the test's testing.TB, so it can be passed where one is expected, and the
// methods it does not redefine (TempDir, Setenv, ...) are the test's own.
type TB struct {
	testing.TB
	t        *T
	cleanups []func()
	skipped  *atomic.Pointer[string] // the test's, set by a Skip outside subtests: why, with its site
	ctx      simctx.Context          // Context's, made at its first call
	cancel   simctx.CancelFunc
	ending   bool // the Cleanup functions run: Context is canceled
}

// Test runs body, a test's body, under weft's controller as Check does.
// Tests instrumented by weft test call it.
func Test(t *testing.T, body func(*TB), opts ...Option) {
	t.Helper()
	if f := runtime.FuncForPC(reflect.ValueOf(body).Pointer()); f != nil {
		frames.NoteBody(f.Name()) // runtime.CallersFrames names it as the test
	}
	var skipped atomic.Pointer[string]
	opts = append([]Option{func(c *config) { c.command, c.inline, c.rewritten = "weft test", true, true }}, opts...)
	Check(t, func(wt *T) {
		tb := &TB{TB: t, t: wt, skipped: &skipped}
		defer tb.runCleanups()
		defer wt.waitParallel() // the Cleanup functions run after the parallel subtests
		body(tb)
	}, opts...)
	if line := skipped.Load(); line != nil && !t.Failed() {
		if *line != "" {
			writeLine(t.Output(), *line)
		}
		t.SkipNow()
	}
}

// Name returns the test's name; in a subtest, with the subtest's.
func (tb *TB) Name() string { return tb.t.Name() }

// Error records an error; the execution goes on.
func (tb *TB) Error(args ...any) { tb.t.fail(sprintln(args...), false) }

// Errorf records an error; the execution goes on.
func (tb *TB) Errorf(format string, args ...any) { tb.t.fail(fmt.Sprintf(format, args...), false) }

// Fatal records an error and ends the execution, or the subtest.
func (tb *TB) Fatal(args ...any) { tb.t.fail(sprintln(args...), true) }

// Fatalf records an error and ends the execution, or the subtest.
func (tb *TB) Fatalf(format string, args ...any) { tb.t.fail(fmt.Sprintf(format, args...), true) }

// Fail marks the execution failed.
func (tb *TB) Fail() { tb.t.fail("failed", false) }

// FailNow marks the execution failed and ends it, or the subtest.
func (tb *TB) FailNow() { tb.t.fail("failed", true) }

// Failed reports whether the test, or the subtest, has failed.
func (tb *TB) Failed() bool { return tb.t.Failed() }

// Log records a message, shown as testing.T's are.
func (tb *TB) Log(args ...any) { tb.t.log(tb.t.site(), sprintln(args...), false) }

// Logf records a message, shown as testing.T's are.
func (tb *TB) Logf(format string, args ...any) {
	tb.t.log(tb.t.site(), fmt.Sprintf(format, args...), false)
}

// Helper marks the calling function as a test helper.
func (tb *TB) Helper() { tb.t.markHelper(2) }

// Skip ends the execution and marks the test skipped (in a subtest, the
// subtest), with a message formatted as by fmt.Sprintln.
func (tb *TB) Skip(args ...any) { tb.skip(sprintln(args...)) }

// Skipf ends the execution and marks the test skipped (in a subtest, the
// subtest).
func (tb *TB) Skipf(format string, args ...any) { tb.skip(fmt.Sprintf(format, args...)) }

// SkipNow ends the execution and marks the test skipped (in a subtest,
// the subtest).
func (tb *TB) SkipNow() { tb.skip("") }

// Skipped reports whether the test, or the subtest, was skipped.
func (tb *TB) Skipped() bool {
	if tb.t.parent == nil {
		return tb.skipped.Load() != nil
	}
	tb.t.x.mu.Lock()
	defer tb.t.x.mu.Unlock()
	return tb.t.out.skipped
}

func (tb *TB) skip(msg string) {
	line := ""
	if msg != "" {
		line = tb.t.site() + ": " + msg
	}
	if tb.t.parent == nil {
		tb.skipped.CompareAndSwap(nil, &line)
	}
	tb.t.skip(line)
}

// Cleanup registers f to run when the test's body returns (in a subtest,
// the subtest's), last registered first.
func (tb *TB) Cleanup(f func()) {
	tb.t.x.mu.Lock()
	tb.cleanups = append(tb.cleanups, f)
	tb.t.x.mu.Unlock()
}

// Context returns a context that is canceled just before the test's
// Cleanup functions run (a subtest's, before the subtest's), as
// testing.T.Context's is. It is weft's (simctx), seen as a standard one:
// a goroutine that waits for it waits for an event of the execution, where
// the real test's context, canceled after the execution, would leave a
// Cleanup that waits for that goroutine deadlocked.
func (tb *TB) Context() context.Context {
	tb.t.x.mu.Lock()
	ctx := tb.ctx
	tb.t.x.mu.Unlock()
	if ctx != nil {
		return simctx.ToStd(ctx)
	}
	// Made outside the lock: under control, making it is an event.
	made, cancel := simctx.WithCancel(simctx.Background())
	tb.t.x.mu.Lock()
	if tb.ctx == nil {
		tb.ctx, tb.cancel = made, cancel
	}
	ctx, ending := tb.ctx, tb.ending
	tb.t.x.mu.Unlock()
	if ending {
		// Asked for first by a goroutine that outlived the body, once
		// the Cleanup functions began: canceled already.
		cancel()
	}
	return simctx.ToStd(ctx)
}

func (tb *TB) runCleanups() {
	tb.t.x.mu.Lock()
	cancel := tb.cancel
	tb.ending = true
	tb.t.x.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	for {
		tb.t.x.mu.Lock()
		n := len(tb.cleanups)
		if n == 0 {
			tb.t.x.mu.Unlock()
			return
		}
		f := tb.cleanups[n-1]
		tb.cleanups = tb.cleanups[:n-1]
		tb.t.x.mu.Unlock()
		f()
	}
}

// Run runs f as a subtest named name, inside the execution, in a goroutine
// of its own as testing.T.Run does: its goroutines and events are part of
// the parent's schedule. As with testing.T.Run, a subtest that go test's
// -run or -skip flags leave out does not run. It reports whether the
// subtest passed.
func (tb *TB) Run(name string, f func(*TB)) bool {
	return tb.t.Run(name, func(t *T) {
		sub := &TB{TB: tb.TB, t: t, skipped: tb.skipped}
		defer sub.runCleanups()
		defer t.waitParallel() // the Cleanup functions run after the parallel subtests
		f(sub)
	})
}

// selected reports whether go test's -run and -skip flags select the test
// named name (its elements separated by slashes), as they select subtests.
func (s selection) selected(name string) bool {
	elems := strings.Split(name, "/")
	match := func(pattern string) (bool, bool) {
		if pattern == "" {
			return false, false
		}
		pats := splitPattern(pattern)
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
	if ok, set := match(s.run); set && !ok {
		return false
	}
	if ok, set := match(s.skip); set && ok {
		return false
	}
	return true
}

// flagSelection is the selection of go test's own -run, -skip and
// -parallel flags.
func flagSelection(container string) selection {
	s := selection{container: container, parallel: parallelLimit()}
	if f := flag.Lookup("test.run"); f != nil {
		s.run = f.Value.String()
	}
	if f := flag.Lookup("test.skip"); f != nil {
		s.skip = f.Value.String()
	}
	return s
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

// Parallel makes a subtest run in parallel with its parallel siblings,
// inside the execution, as T.Parallel does. At the top of a test it does
// nothing: an instrumented test that calls t.Parallel() as its first
// statement runs in parallel with the others, since the rewriter leaves
// that call on the test's own *testing.T; executions of one test are
// serialized by weft.
func (tb *TB) Parallel() { tb.t.Parallel() }
