package sim

import (
	"reflect"

	"github.com/weftdev/weft/sched"
)

// Objects used from outside their execution. A goroutine that is none of
// an execution's, started in plain mode before it (in init, by an earlier
// test, by a package-level janitor), runs every weft operation on the
// plain path, on the object's plain state: while an execution runs in the
// process (gls.Active), the plain paths of the primitives whose state
// belongs to an execution (channels, mutexes, wait groups, conds, onces,
// maps) ask outside first. A send, a receive that would wait and a close
// of a channel, a select without default on its channels (see
// selectvisit.go), a Cond's Wait, Signal and Broadcast, a Mutex's Lock and
// Unlock, an RWMutex's Lock, Unlock, RLock and RUnlock, a WaitGroup's Add,
// Done and Wait, and a Once's Do (a server's handler on a goroutine that
// net/http started, which left the execution: see sched.G.Claim) visit
// first instead (TryLock, TryRLock and a select with a default, which do
// not wait, do not): the execution's controller performs them on the execution's side of the
// object when none of its goroutines can run, as though the goroutine
// outside ran then, and the goroutine waits for it (see visit; ants'
// default pool hands an execution's idle workers their nil from its purge
// loop, started in init). Only a visit the execution ended before goes on
// to outside. If the object's state belongs to an execution
// still running, that execution fails as sched.Outside (see
// sched.Controller.Outside), and the goroutine then goes on as in plain
// mode, on the plain state the execution does not see: a send waits for
// a plain receiver (for good, on an unbuffered channel, if none comes), a
// Lock takes the plain mutex, a Wait waits for the plain counter. That is
// what plain Go would do but for the execution's side of the object,
// which weft cannot give it; the goroutine neither crashes nor blocks the
// process. While no execution runs, the plain paths do not call outside:
// their cost is a second load of gls's counter (who makes the first), and
// no call.
//
// Atomics and Vars are left out: their value is the plain memory in every
// mode, and a goroutine outside sees and changes it as plain Go does (the
// race detector sees a Var's races).

// outside tells the controller of the execution that owns the state in
// slot, if one does and still runs, that a goroutine outside it performed
// op on x (the object, whose Go type the report names). The slot is read
// without synchronization: its goroutines may be writing it, and a stale
// value only misses a report.
//
//go:noinline
//go:norace
func outside[S any, P interface {
	*S
	obj() *object
}](slot *P, op *sched.Op, x any) {
	sched.NoteOutside()
	s := *slot
	if s == nil {
		return
	}
	o := s.obj()
	if o.ctl == nil || o.exec == 0 {
		return // a recorded run's, or one never used under control
	}
	o.ctl.Outside(o.exec, op, o.id, reflect.TypeOf(x).String())
}

// visit asks the controller of the execution that owns the state in slot,
// if one does and still runs, to perform try on that state for the calling
// goroutine, which runs outside every execution, when none of the
// execution's goroutines can run (see sched.Controller.Visit): op on x
// (the object, whose Go type a report names). try reports whether the
// operation could complete; it is tried again at each stall until it does.
// visit reports whether it did; false when the state belongs to no
// running execution, or the execution ended first (and then fails as
// Outside): the caller goes on in plain mode.
//
//go:noinline
//go:norace
func visit[S any, P interface {
	*S
	obj() *object
}](slot *P, op *sched.Op, x any, try func(s P, g *sched.G) bool) bool {
	// Not sched.NoteOutside: a visit performed counts as its execution's,
	// and every caller goes on to outside, which notes it, when it was not.
	s := *slot
	if s == nil {
		return false
	}
	o := s.obj()
	if o.ctl == nil || o.exec == 0 {
		return false
	}
	return o.ctl.Visit(o.exec, op, o.id, reflect.TypeOf(x).String(), func(g *sched.G) bool { return try(s, g) })
}
