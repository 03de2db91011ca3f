package sched

import (
	"reflect"
	"strings"
	"unsafe"
)

// A DumpG is a goroutine of an execution as a goroutine dump taken under
// control shows it (sim.Stack, which stands for runtime.Stack).
type DumpG struct {
	// Addr is the goroutine's address, which a traceback of its worker
	// shows as the second argument of Controller.goroutine: how the dump's
	// trace of a goroutine that started is told to be this one's.
	Addr uintptr
	// Index is the goroutine's position in creation order, from 0 (the
	// root); Parent is the index of the goroutine that started it, -1 for
	// the root.
	Index, Parent int
	// GoStmt says that a go statement started it (G.Go), rather than a
	// timer (G.Spawn): a dump names the function of the go statement as
	// its creator.
	GoStmt bool
	// Started says that the goroutine has run: one that has not yet
	// exists only in the controller, and the dump shows it runnable, at
	// the entry of its function.
	Started bool
	// State is the goroutine's state as Go names it in a dump's header:
	// "runnable", or what it waits for ("chan receive", "select",
	// "sync.Mutex.Lock", ...); "" for the caller of Dump, which runs, and
	// for a wait Go has no name for (the runtime's header is kept).
	State string
	// Fn is the entry of the function the goroutine runs: the closure of
	// its go statement, whose name tells the function that ran it.
	Fn uintptr
}

// waitReasons are Go's names, in a goroutine dump's header, of the waits
// of the operations of sim that block, by the operation's name.
var waitReasons = map[string]string{
	"Chan.Recv": "chan receive", "Chan.Send": "chan send", "Select": "select",
	"Mutex.Lock": "sync.Mutex.Lock", "Once.Do": "sync.Mutex.Lock",
	"RWMutex.Lock": "sync.RWMutex.Lock", "RWMutex.Lock(wait readers)": "sync.RWMutex.Lock",
	"RWMutex.RLock": "sync.RWMutex.RLock", "RWMutex.RLock(wait writer)": "sync.RWMutex.RLock",
	"WaitGroup.Wait": "sync.WaitGroup.Wait", "Cond.Wait": "sync.Cond.Wait",
	"Sleep": "sleep",
}

// Dump describes the execution's goroutines that have not ended, in
// creation order, for a goroutine dump taken by g: its controller's
// address (Controller.goroutine's first argument in a traceback), the
// test's name (Options.Name), and the goroutines.
//
//go:norace
func (g *G) Dump() (ctl uintptr, name string, gs []DumpG) {
	c := g.c
	for _, x := range c.all {
		if x.done {
			continue
		}
		d := DumpG{Addr: uintptr(unsafe.Pointer(x)), Index: x.idx, Parent: -1, GoStmt: x.goStmt,
			Started: x == g || x.n > 0, Fn: x.fn}
		if x.parent != nil {
			d.Parent = x.parent.idx
		}
		if x != g {
			d.State = x.dumpState(d.Started)
		}
		gs = append(gs, d)
	}
	return uintptr(unsafe.Pointer(c)), c.opts.Name, gs
}

// dumpState is the state of goroutine g, which does not run, as Go names
// it in a dump's header: what its pending operation waits for, or
// runnable; "" if Go has no name for its wait.
//
//go:norace
func (g *G) dumpState(started bool) string {
	if !started || g.op == nil || g.yieldEvent {
		return "runnable"
	}
	reason := waitReasons[strings.TrimSpace(g.op.name)]
	switch {
	case g.yield:
		// A poller: a wait on channels that are Go's, or a spin loop.
		if reason != "" {
			return reason
		}
		return "runnable"
	case g.wait != nil && !g.cand:
		return reason
	}
	return "runnable"
}

// funcEntry returns the entry of f's code: for a closure, the function
// literal's.
func funcEntry(f func()) uintptr {
	if f == nil {
		return 0
	}
	return reflect.ValueOf(f).Pointer()
}
