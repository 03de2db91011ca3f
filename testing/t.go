package weft

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/weftdev/weft/record"
	"github.com/weftdev/weft/sched"
)

// T is what a test body gets in place of *testing.T: its methods may be
// called from any goroutine of the execution (those started with sim.Go).
// Errors fail the execution; Fatalf also ends it cleanly, unwinding every
// goroutine, from whichever goroutine calls it.
//
// Outside a controlled execution (RunPlain), T records errors like
// testing.T, and Fatalf ends the calling goroutine.
type T struct {
	name string

	mu      sync.Mutex // for plain mode; uncontended under control
	failed  bool
	errors  []string
	logs    []string
	helpers map[string]bool
	std     testing.TB // set by Plain: what T reports goes there
}

func newT(name string) *T { return &T{name: name, helpers: map[string]bool{}} }

// Name returns the test's name.
func (t *T) Name() string { return t.name }

// Failed reports whether the execution has failed.
func (t *T) Failed() bool {
	if t.std != nil {
		return t.std.Failed()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.failed
}

// Errorf records an error; the execution goes on.
func (t *T) Errorf(format string, args ...any) { t.fail(fmt.Sprintf(format, args...), false) }

// Error records an error formatted as by fmt.Sprintln; the execution goes on.
func (t *T) Error(args ...any) { t.fail(sprintln(args...), false) }

// Fatalf records an error and ends the execution: the calling goroutine
// exits, and every other one exits when it is next scheduled.
func (t *T) Fatalf(format string, args ...any) { t.fail(fmt.Sprintf(format, args...), true) }

// Fatal is Fatalf formatted as by fmt.Sprintln.
func (t *T) Fatal(args ...any) { t.fail(sprintln(args...), true) }

// Fail marks the execution failed without a message.
func (t *T) Fail() { t.fail("failed", false) }

// FailNow marks the execution failed and ends it, like Fatal.
func (t *T) FailNow() { t.fail("failed", true) }

// Logf records a message, shown in the report of a failing execution.
func (t *T) Logf(format string, args ...any) {
	line := t.site() + ": " + fmt.Sprintf(format, args...)
	if t.std != nil {
		t.std.Log(line)
		return
	}
	t.mu.Lock()
	t.logs = append(t.logs, line)
	t.mu.Unlock()
}

// Log is Logf formatted as by fmt.Sprintln.
func (t *T) Log(args ...any) { t.Logf("%s", sprintln(args...)) }

// Helper marks the calling function as a test helper: reported sites skip
// it, as testing.T.Helper does.
func (t *T) Helper() { t.markHelper(2) }

// markHelper records the function skip frames up as a helper.
func (t *T) markHelper(skip int) {
	pc, _, _, ok := runtime.Caller(skip)
	if ok {
		t.mu.Lock()
		t.helpers[runtime.FuncForPC(pc).Name()] = true
		t.mu.Unlock()
	}
}

func (t *T) fail(msg string, fatal bool) {
	site := t.site()
	if t.std != nil {
		t.forward(site, msg, fatal)
		return
	}
	t.mu.Lock()
	t.failed = true
	t.errors = append(t.errors, site+": "+msg)
	t.mu.Unlock()
	g := sched.Current()
	if g == nil {
		if rt := record.Current(); rt != nil {
			rt.Fail(&sched.Failure{Kind: sched.Error, Goroutine: rt.ID(), Message: msg, Site: site})
		}
		if fatal {
			runtime.Goexit()
		}
		return
	}
	g.Fail(&sched.Failure{Kind: sched.Error, Goroutine: g.ID(), Message: msg, Site: site})
	if fatal {
		g.Abort()
	}
}

// site returns the file:line of the user code calling a method of t,
// skipping helpers.
func (t *T) site() string {
	var pcs [64]uintptr
	n := runtime.Callers(3, pcs[:])
	frames := runtime.CallersFrames(pcs[:n])
	t.mu.Lock()
	defer t.mu.Unlock()
	for {
		f, more := frames.Next()
		if !sched.Internal(f.Function, f.File) && !t.helpers[f.Function] && f.File != "" {
			return sched.Site(f.File, f.Line)
		}
		if !more {
			return ""
		}
	}
}

func (t *T) errorCount() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.errors)
}

func sprintln(args ...any) string { return strings.TrimSuffix(fmt.Sprintln(args...), "\n") }

// RunPlain runs body once under the real Go scheduler, without weft's
// controller: sim's primitives run in plain mode, truly in parallel. It
// returns the errors body reported (file:line: message), and a panic of the
// body's own goroutine as one more. It is the baseline weft is measured
// against: how often does plain go test see a bug? A panic in a goroutine
// the body started crashes the program, as it would in go test, and a
// deadlock never returns.
func RunPlain(body func(*T)) []string {
	t := newT("plain")
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			if r := recover(); r != nil {
				t.mu.Lock()
				t.errors = append(t.errors, fmt.Sprintf("panic: %v", r))
				t.mu.Unlock()
			}
		}()
		body(t)
	}()
	<-done
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.errors
}
