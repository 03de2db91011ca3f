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
// reports. Under control the race detector is not told about a Var's
// accesses: each is atomic, an event the controller orders, so that a
// test written with Var explores its orderings (plain memory is what the
// race detector checks under control).
//
// The zero value holds T's zero value.
type Var[T any] struct {
	v  T
	st *varState
}

type varState struct {
	object
	// Recording: the digest of the value is its 8 bytes (see
	// wordDigest).
	word bool
}

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
	v := gls.Get()
	if t, ok := v.(*record.Thread); ok {
		return recLoad(t, &x.st, &x.v)
	}
	if g := claim(v); g != nil {
		return x.loadControlled(g)
	}
	return x.v
}

//go:norace
func (x *Var[T]) loadControlled(g *sched.G) T {
	g.Step(opLoad, stateOf(&x.st, g).id, nil)
	v := x.v
	g.Observe(digest(&v))
	return v
}

// Store sets the value of x.
func (x *Var[T]) Store(v T) {
	if gls.Active() {
		x.storeSlow(v)
		return
	}
	x.v = v
}

//go:noinline
func (x *Var[T]) storeSlow(v T) {
	who := gls.Get()
	if t, ok := who.(*record.Thread); ok {
		recStore(t, &x.st, &x.v, v)
		return
	}
	if g := claim(who); g != nil {
		x.storeControlled(g, v)
		return
	}
	x.v = v
}

//go:norace
func (x *Var[T]) storeControlled(g *sched.G, v T) {
	g.Step(opStore, stateOf(&x.st, g).id, nil)
	x.v = v
}
