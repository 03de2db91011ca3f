package sim

import (
	"github.com/weftdev/weft/internal/gls"
	"github.com/weftdev/weft/record"
	"github.com/weftdev/weft/sched"
)

// A Var is a shared memory location: under control, every Load and Store
// is an event, so the controller interleaves accesses the way a racy
// program could see them. In plain mode a Var is a plain variable, and
// unsynchronized concurrent access is a data race, as the race detector
// reports.
//
// The zero value holds T's zero value.
type Var[T any] struct {
	v  T
	st *varState
}

type varState struct{ object }

// NewVar returns a Var holding v.
func NewVar[T any](v T) *Var[T] { return &Var[T]{v: v} }

// Load returns the value of x.
func (x *Var[T]) Load() T {
	if gls.Active() {
		return x.loadSlow()
	}
	return x.v
}

//go:noinline
func (x *Var[T]) loadSlow() T {
	g, t := lookup()
	if g != nil {
		g.Step(opLoad, stateOf(&x.st, g).id, nil)
		v := x.v
		g.Observe(digest(&v))
		return v
	}
	if t != nil {
		return recLoad(t, &x.st, &x.v)
	}
	return x.v
}

// Store sets the value of x.
func (x *Var[T]) Store(v T) {
	if gls.Active() {
		if t := accessSlow(&x.st, opStore); t != nil {
			recStore(t, &x.st, &x.v, v)
			return
		}
	}
	x.v = v
}

// access is the event of a memory operation on the location whose state
// slot is st: a scheduling point under control, nothing in plain mode. It is
// inlined: in plain mode, while no execution runs in the process, it costs
// one atomic load.
func access(st **varState, op *sched.Op) {
	if gls.Active() {
		accessSlow(st, op)
	}
}

// accessSlow is access's event when an execution runs in the process: under
// control, a scheduling point. Recording, it returns the caller's Thread:
// the caller performs the access with the recorder's brackets (recLoad,
// recStore, recRMW).
//
//go:noinline
func accessSlow(st **varState, op *sched.Op) *record.Thread {
	g, t := lookup()
	if g != nil {
		s := stateOf(st, g)
		g.Step(op, s.id, nil)
		return nil
	}
	return t
}
