package weft

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/weftdev/weft/record"
	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
)

// T is what a test body gets in place of *testing.T: its methods may be
// called from any goroutine of the execution (those started with sim.Go).
// Errors fail the execution; Fatalf also ends it cleanly, unwinding every
// goroutine, from whichever goroutine calls it. In a subtest (Run), Fatalf
// from the subtest's own goroutine ends the subtest alone, as in go test.
//
// What the body logs, and its subtests, appear in go test's output (with
// -v, or when the test fails) as they would under go test: those of the
// first execution when every execution passed, those of the failing one
// otherwise. As under go test, a test has completed once its function,
// its Cleanup functions and its subtests have returned: a line logged to
// it after goes to its nearest ancestor still running, and with none (or
// for an error) a controlled goroutine panics as go test's do, "Log in
// goroutine after TestX has completed: ...", which fails the execution.
//
// Outside a controlled execution (RunPlain), T records errors like
// testing.T, and Fatalf ends the calling goroutine.
type T struct {
	name   string
	path   string // the go test name of the subtest, to select it by -run
	x      *execution
	out    *output
	parent *T
	g      atomic.Pointer[sched.G] // the goroutine running a subtest, under control

	// Parallel subtests (see Parallel): a subtest's release tells Run
	// whether it went parallel (true) or ended (false); a parent's
	// barrier is closed once its function returns, and psubs counts its
	// parallel subtests until they complete. hasParallel: one of its
	// subtests went parallel (guarded by x.mu).
	release     *sim.Chan[bool]
	barrier     *sim.Chan[struct{}]
	psubs       sim.WaitGroup
	parallel    bool
	hasParallel bool
	ended       bool // its function returned: its barrier is closed
}

// execution is what the T's of one execution share.
type execution struct {
	mu      sync.Mutex // for plain mode; uncontended under control
	failed  bool
	errors  []string
	logs    []string
	helpers map[string]bool
	sel     selection
	root    *output
	std     testing.TB // set by Plain: what the T's report goes there
	slots   slots      // go test's -parallel limit (parallel.go)
}

// output is what a test or subtest of an execution wrote, as go test shows
// it: its lines, and its subtests where they ran.
type output struct {
	name    string
	items   []item
	failed  bool
	skipped bool
	// done: the test or subtest has completed, as go test's c.done says:
	// its function returned, its Cleanup functions ran, its subtests
	// ended. What a goroutine logs to it then goes to the nearest
	// ancestor still running; with none, under control, it is go test's
	// panic (see T.late).
	done bool
}

type item struct {
	line  string
	error bool
	sub   *output
}

// selection is how go test's -run and -skip select subtests, the name of
// the go test the execution's subtests appear under, and how many parallel
// subtests run at once (go test's -parallel; 0: no limit).
type selection struct {
	container string
	run, skip string
	parallel  int
}

func newT(name string, sel selection) *T {
	// One allocation for the three: an exploration makes one T for each
	// of its executions.
	n := &struct {
		t   T
		out output
		x   execution
	}{}
	n.x.sel, n.x.root = sel, &n.out
	n.x.slots.running = 1 // the top-level test's, as go test's main test holds one
	n.t.name, n.t.path, n.t.out, n.t.x = name, sel.container, &n.out, &n.x
	return &n.t
}

// Name returns the test's name; in a subtest, with the subtest's.
func (t *T) Name() string { return t.name }

// Failed reports whether the test has failed; in a subtest, the subtest.
func (t *T) Failed() bool {
	if t.x.std != nil {
		return t.x.std.Failed()
	}
	t.x.mu.Lock()
	defer t.x.mu.Unlock()
	return t.out.failed
}

// Errorf records an error; the execution goes on.
func (t *T) Errorf(format string, args ...any) { t.fail(fmt.Sprintf(format, args...), false) }

// Error records an error formatted as by fmt.Sprintln; the execution goes on.
func (t *T) Error(args ...any) { t.fail(sprintln(args...), false) }

// Fatalf records an error and ends the execution: the calling goroutine
// exits, and every other one exits when it is next scheduled. Called by a
// subtest's own goroutine, it ends the subtest.
func (t *T) Fatalf(format string, args ...any) { t.fail(fmt.Sprintf(format, args...), true) }

// Fatal is Fatalf formatted as by fmt.Sprintln.
func (t *T) Fatal(args ...any) { t.fail(sprintln(args...), true) }

// Fail marks the execution failed without a message.
func (t *T) Fail() { t.fail("failed", false) }

// FailNow marks the execution failed and ends it, like Fatal.
func (t *T) FailNow() { t.fail("failed", true) }

// Logf records a message, shown in go test's output as testing.T's are.
func (t *T) Logf(format string, args ...any) { t.log(t.site(), fmt.Sprintf(format, args...), false) }

// Log is Logf formatted as by fmt.Sprintln.
func (t *T) Log(args ...any) { t.log(t.site(), sprintln(args...), false) }

// Helper marks the calling function as a test helper: reported sites skip
// it, as testing.T.Helper does.
func (t *T) Helper() { t.markHelper(2) }

// Run runs f as a subtest of t named name, in a goroutine of its own, and
// waits for it, as testing.T.Run does: the subtest's goroutines and events
// are part of the execution. A subtest that go test's -run or -skip flags
// leave out does not run. It reports whether the subtest passed.
func (t *T) Run(name string, f func(t *T)) bool {
	name = strings.ReplaceAll(name, " ", "_")
	sub := &T{name: t.name + "/" + name, path: t.path + "/" + name, x: t.x, out: &output{name: name}, parent: t}
	if !t.x.sel.selected(sub.path) {
		return true
	}
	t.x.mu.Lock()
	t.out.items = append(t.out.items, item{sub: sub.out})
	t.x.mu.Unlock()
	if t.barrier == nil {
		t.barrier = sim.NewChan[struct{}](0)
	}
	sub.release = sim.NewChan[bool](1)
	sim.Go(func() {
		defer func() {
			sub.waitParallel()
			sub.settle()
			sub.complete()
			if sub.parallel {
				t.psubs.Done()
			} else {
				sub.release.Send(false)
			}
		}()
		sub.g.Store(sched.Current())
		f(sub)
	})
	if sub.release.Recv() {
		return true // went parallel: it runs once t's function returns
	}
	return !sub.Failed()
}

// Parallel signals that the subtest runs in parallel with its parallel
// siblings, as testing.T.Parallel does: the parent's Run returns at once,
// the subtest waits until the parent's function has returned, then goes
// on beside the others, under the controller, which explores their
// interleavings; the parent completes (and its Cleanup functions run) once
// they have. At most go test's -parallel of them run at once: the others
// wait for a slot, and which one gets a freed slot is the schedule's
// choice (see parallel.go). It must be called from the subtest's own
// goroutine, once. At the top of a test, or outside an execution, it does
// nothing: executions of one test are serialized.
func (t *T) Parallel() {
	if t.parent == nil || t.release == nil || t.parallel || t.x.std != nil {
		return
	}
	t.parallel = true
	t.parent.psubs.Add(1)
	t.x.mu.Lock()
	t.parent.hasParallel = true
	t.x.mu.Unlock()
	t.release.Send(true)
	t.parent.barrier.Recv()
	t.x.acquire()
}

// waitParallel is called once t's function has returned: its parallel
// subtests go on, t's slot freed for them, and it waits for them to
// complete. Called again, it does nothing.
func (t *T) waitParallel() {
	if t.ended || t.barrier == nil {
		t.ended = true
		return
	}
	t.ended = true
	t.x.mu.Lock()
	hadParallel := t.hasParallel
	t.x.mu.Unlock()
	if hadParallel {
		t.x.release()
	}
	t.barrier.Close()
	t.psubs.Wait()
}

// markHelper records the function skip frames up as a helper.
func (t *T) markHelper(skip int) {
	pc, _, _, ok := runtime.Caller(skip)
	if ok {
		t.x.mu.Lock()
		if t.x.helpers == nil {
			t.x.helpers = map[string]bool{}
		}
		t.x.helpers[runtime.FuncForPC(pc).Name()] = true
		t.x.mu.Unlock()
	}
}

// log records a line of t, site: msg, an error's if isError. A line of a
// test that has completed goes to its nearest ancestor still running, as
// under go test; one that has none, or an error of a test that has
// completed, is go test's panic, under control (see late).
func (t *T) log(site, msg string, isError bool) {
	line := site + ": " + msg
	if t.x.std != nil {
		t.x.std.Log(line)
		return
	}
	t.x.mu.Lock()
	late := t.late(msg, isError)
	t.x.mu.Unlock()
	if late != "" && sched.OnWorker() && sched.Current() != nil {
		// As go test does, in a controlled goroutine: the controller
		// reports the panic, but not one of a goroutine that unwinds once
		// the execution is aborted or kept running too long, a
		// consequence. A goroutine started by code weft does not
		// instrument keeps the line: its panic would end the process.
		panic(late)
	}
	t.x.mu.Lock()
	defer t.x.mu.Unlock()
	dest := t
	for dest.out.done && dest.parent != nil {
		dest = dest.parent
	}
	dest.out.items = append(dest.out.items, item{line: line, error: isError})
	if isError {
		t.x.errors = append(t.x.errors, line)
		t.x.failed = true
		for u := t; u != nil; u = u.parent {
			u.out.failed = true
		}
	} else {
		t.x.logs = append(t.x.logs, line)
	}
}

func (t *T) fail(msg string, fatal bool) {
	site := t.site()
	if t.x.std != nil {
		t.x.forward(site, msg, fatal)
		return
	}
	t.log(site, msg, true)
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
		t.end(g)
	}
}

// late returns what go test panics with when msg is logged to t (an
// error's if isError) from a goroutine after t has completed: "Fail in
// goroutine after TestX has completed" for an error (naming the outermost
// test that has, as testing.common.Fail does), "Log in goroutine after
// TestX/sub has completed: msg" for a line once its test and every
// ancestor have (before, the line goes to the nearest ancestor still
// running). An execution is its top-level test: past it, go test gives
// such a line to the binary's own root test while later tests run, and
// panics once none runs (go test -run TestX alone), or under -race may
// report a race on the test's state. "" while the call is legal. Called
// with t.x.mu held.
func (t *T) late(msg string, isError bool) string {
	if !t.out.done {
		return ""
	}
	if isError {
		outer := t
		for u := t.parent; u != nil && u.out.done; u = u.parent {
			outer = u
		}
		return "Fail in goroutine after " + outer.name + " has completed: " + msg
	}
	for u := t.parent; u != nil; u = u.parent {
		if !u.out.done {
			return ""
		}
	}
	return "Log in goroutine after " + t.name + " has completed: " + msg
}

// complete marks t completed, once its function, its Cleanup functions
// and its subtests have returned.
func (t *T) complete() {
	t.x.mu.Lock()
	t.out.done = true
	t.x.mu.Unlock()
}

// end ends the calling goroutine g after FailNow or SkipNow: a subtest's
// own goroutine ends the subtest, any other goroutine the execution.
func (t *T) end(g *sched.G) {
	if t.parent != nil && t.g.Load() == g {
		runtime.Goexit()
	}
	g.Abort()
}

// skip records why a subtest is skipped (line, "" for no reason), and
// ends it: from its own goroutine (or outside control), the subtest;
// otherwise, or at the top, the execution. The test itself is skipped by
// its own testing.T; under Plain, by the testing.TB the T reports to.
func (t *T) skip(line string) {
	if t.x.std != nil {
		if line == "" {
			t.x.std.SkipNow()
		}
		t.x.std.Skip(line)
	}
	t.x.mu.Lock()
	if t.parent != nil && line != "" {
		t.out.items = append(t.out.items, item{line: line})
	}
	t.out.skipped = true
	t.x.mu.Unlock()
	if g := sched.Current(); g != nil {
		t.end(g)
	}
	runtime.Goexit()
}

// site returns the file:line of the user code calling a method of t,
// skipping helpers.
func (t *T) site() string {
	var pcs [64]uintptr
	n := runtime.Callers(3, pcs[:])
	frames := runtime.CallersFrames(pcs[:n])
	t.x.mu.Lock()
	defer t.x.mu.Unlock()
	for {
		f, more := frames.Next()
		if !sched.Internal(f.Function, f.File) && !t.x.helpers[f.Function] && f.File != "" {
			return sched.Site(f.File, f.Line)
		}
		if !more {
			return ""
		}
	}
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
	t := newT("plain", selection{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			if r := recover(); r != nil {
				t.x.mu.Lock()
				t.x.errors = append(t.x.errors, fmt.Sprintf("panic: %v", r))
				t.x.mu.Unlock()
			}
		}()
		body(t)
	}()
	<-done
	t.x.mu.Lock()
	defer t.x.mu.Unlock()
	return t.x.errors
}
