package sched

import (
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
)

// Goroutines outside the execution. An object whose state belongs to an
// execution (a channel made or used in it, a mutex it locked) lives in
// that execution: its controlled goroutines see it through the
// controller, one at a time. A goroutine that is none of the execution's
// (started in plain mode before it: in init, by an earlier test, by a
// package-level janitor) and uses the object while the execution runs
// does so in real time, outside every schedule, on the object's plain
// state: a send the execution never receives, a lock that excludes
// nobody. Package sim tells the controller (Controller.Outside), and the
// execution fails as Outside when it ends: nothing of its own schedule
// depends on when that goroutine ran, only the report.

// outsiders holds the Outside failures of the executions under way, by
// execution number: reported by goroutines the controller does not know,
// taken by the execution's result. pending counts the reports on their
// way, so that an execution that had none takes no lock to learn it.
var outsiders struct {
	pending atomic.Int64
	mu      sync.Mutex
	byExec  map[uint64]outsideUse
}

// An outsideUse is the first use of an execution's object from outside
// it: the failure, and the object's number.
type outsideUse struct {
	f   *Failure
	obj uint32
}

// Outside reports that a goroutine outside every execution performed op
// on an object of execution exec, which c runs or ran: the object's
// number obj and what it is (its Go type, "*sim.Chan[int]"). If c still
// runs exec, the execution fails as Outside when it ends, with the
// calling goroutine's stack and where it was started, unless an earlier
// outside use was reported. Outside reports whether exec was running. It
// is for package sim, which calls it from the plain path of an operation
// when the object's state belongs to an execution; the caller goes on as
// plain mode does.
func (c *Controller) Outside(exec uint64, op *Op, obj uint32, what string) bool {
	if c.live.Load() != exec {
		return false
	}
	// Before the stack dump, the cheap test: only the first use is
	// reported (a purge loop touches a thousand objects).
	outsiders.mu.Lock()
	_, seen := outsiders.byExec[exec]
	outsiders.mu.Unlock()
	if seen {
		return c.live.Load() == exec
	}
	var pcs [128]uintptr
	n := runtime.Callers(2, pcs[:])
	f := outsideFailure(op, obj, what, string(debug.Stack()), pcs[:n])
	// pending first, then live: the execution's result stores live, then
	// reads pending (see takeOutside).
	outsiders.pending.Add(1)
	outsiders.mu.Lock()
	defer outsiders.mu.Unlock()
	if c.live.Load() != exec {
		outsiders.pending.Add(-1)
		return false
	}
	if _, seen := outsiders.byExec[exec]; seen {
		outsiders.pending.Add(-1)
		return true
	}
	if outsiders.byExec == nil {
		outsiders.byExec = make(map[uint64]outsideUse)
	}
	outsiders.byExec[exec] = outsideUse{f, obj}
	return true
}

// Outside is Controller.Outside for timer t: a goroutine outside its
// execution stopped or reset it (op), what the timer is.
//
//go:norace
func (t *Timer) Outside(op *Op, what string) bool {
	c, exec := t.c, t.exec
	if c == nil {
		return false
	}
	return c.Outside(exec, op, 0, what)
}

// takeOutside ends the time in which goroutines outside the execution
// can report it (Outside), and returns what they reported, or nil. The
// execution's result calls it, once.
func (c *Controller) takeOutside() (outsideUse, bool) {
	c.live.Store(0)
	if outsiders.pending.Load() == 0 {
		return outsideUse{}, false
	}
	outsiders.mu.Lock()
	defer outsiders.mu.Unlock()
	u, ok := outsiders.byExec[c.seq]
	if ok {
		delete(outsiders.byExec, c.seq)
		outsiders.pending.Add(-1)
	}
	return u, ok
}

// maxOutsideWaiting bounds the goroutines an Outside failure lists as
// waiting on its object.
const maxOutsideWaiting = 4

// waitingOn lists, for an Outside failure, the goroutines of the
// execution that the deadlock or leak among its other failures (more)
// left waiting on object obj: the execution's side of the object, which a
// goroutine outside it used.
func (c *Controller) waitingOn(obj uint32, more []*Failure) []Waiting {
	if obj == 0 {
		return nil
	}
	on := make(map[string]bool)
	for _, g := range c.all {
		if g.obj == obj {
			on[g.id] = true
		}
	}
	var ws []Waiting
	for _, f := range more {
		if f.Kind != Deadlock && f.Kind != Leak {
			continue
		}
		for _, w := range f.Waiting {
			if on[w.Goroutine] && len(ws) < maxOutsideWaiting {
				ws = append(ws, w)
			}
		}
	}
	return ws
}

// outsideFailure describes an outside use of object obj from the stack of
// the goroutine that made it: block, its dump, and pcs, its program
// counters.
func outsideFailure(op *Op, obj uint32, what, block string, pcs []uintptr) *Failure {
	site, user := userSite(block)
	object := ""
	if obj != 0 {
		object = " (its object " + itoa(int(obj)) + ")"
	}
	msg := op.String() + " on a " + strings.TrimPrefix(what, "*") + " of the execution" + object +
		" by a goroutine outside it, " + startedAt(block, pcs) +
		"\nweft runs only the goroutines an execution starts: this one runs in real time, outside every schedule," +
		" and the execution never sees what it does to its objects (a send its receivers miss, a lock that excludes none of them)." +
		"\nTypically a package-level background goroutine (a janitor, a purge loop) started in init or by an earlier test:" +
		" start it inside the test, or disable it in tests." +
		"\nNo bug of the test, and not saved: no replay runs that goroutine again."
	return &Failure{Kind: Outside, Site: site, Stack: user, Message: msg}
}

// startedAt says where the goroutine was started, from its stack dump
// block and its program counters pcs, innermost first: at the go
// statement of its created-by frame if that is user code; otherwise
// (sim.Go started it: weft test rewrites a go statement into a call of
// sim.Go with a function literal, on the statement's line) at the first
// line of its outermost user function, the one it runs. And by which
// goroutine, if the dump says.
func startedAt(block string, pcs []uintptr) string {
	where := ""
	lines := strings.Split(strings.TrimRight(block, "\n"), "\n")
	creator := ""
	if n := len(lines); n >= 2 && strings.HasPrefix(lines[n-2], "created by ") {
		name := strings.TrimPrefix(lines[n-2], "created by ")
		if j := strings.Index(name, " in goroutine "); j > 0 {
			name, creator = name[:j], name[j+len(" in "):]
		}
		loc := strings.TrimSpace(lines[n-1])
		if j := strings.LastIndexByte(loc, ' '); j > 0 && strings.HasPrefix(loc[j+1:], "+0x") {
			loc = loc[:j]
		}
		if j := strings.LastIndexByte(loc, ':'); j > 0 && !Internal(name, loc[:j]) {
			where = "started at " + Site(loc[:j], atoi(loc[j+1:])) + " in " + name
		}
	}
	if where == "" {
		frames := runtime.CallersFrames(pcs)
		for {
			f, more := frames.Next()
			if f.Func != nil && !Internal(f.Function, f.File) && f.File != "" {
				file, line := f.Func.FileLine(f.Entry)
				where = "running " + f.Function + " (" + Site(file, line) + ")"
			}
			if !more {
				break
			}
		}
	}
	if where == "" {
		where = "started by weft's or Go's own code"
	}
	switch creator {
	case "":
	case "goroutine 1":
		where += ", by goroutine 1 (package initialization, or TestMain)"
	default:
		where += ", by " + creator
	}
	return where
}

func atoi(s string) int {
	n := 0
	for _, r := range s {
		if r < '0' || r > '9' {
			break
		}
		n = n*10 + int(r-'0')
	}
	return n
}
