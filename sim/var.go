package sim

import (
	"sync/atomic"
	"unsafe"

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
	// The digest of the value is its 8 bytes (see wordDigest).
	word bool
}

// controlled returns x's state in g's execution, or nil if it has none yet
// (newControlled): newState's test, inlined into every controlled Load and
// Store.
//
//go:norace
func (x *Var[T]) controlled(g *sched.G) *varState {
	if s := x.st; s != nil && s.exec == g.Controller().Execution() {
		return s
	}
	return nil
}

// newControlled makes x's state in g's execution.
//
//go:norace
func (x *Var[T]) newControlled(g *sched.G) *varState {
	s, _ := newState(&x.st, g)
	s.word = wordDigest[T]()
	return s
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

// loadSlow is Load in controlled or recording mode. The recorded load is
// written out here, not called: it is the hottest path of a recording.
//
//go:noinline
func (x *Var[T]) loadSlow() T {
	k := gls.Self()
	p := k.Slot()
	if p != nil {
		if t, ok := (*p).(*record.Thread); ok {
			// runVar's, inlined; a Var new to the run, or whose values
			// are not words, takes loadOther.
			s := (*varState)(atomic.LoadPointer((*unsafe.Pointer)(unsafe.Pointer(&x.st))))
			if s == nil || s.run != t.Run() || !s.word {
				return x.loadOther(t, s)
			}
			l := s.loc
			r := t.Access(l)
			// recLoadFn's loop, its first round written out, the others
			// out of line (a loop here puts its test at the end, a jump
			// away); the digest is the word (see digestAs).
			b := r.ReadBegin(t, l)
			v := x.v
			d := *(*uint64)(unsafe.Pointer(&v))
			if r.ReadEnd(t, l, b, d) {
				v, d = x.loadAgain(t, l, true, r)
			}
			t.Observe(d)
			return v
		}
		if g, ok := (*p).(*sched.G); ok {
			// Controlled: claim's and loadControlled's, inlined, as in
			// storeSlow.
			if !g.Runs() && g.Claim() == nil {
				return x.v // a goroutine that left the execution
			}
			s := x.controlled(g)
			if s == nil {
				s = x.newControlled(g)
			}
			g.StepReady(opLoad, s.id)
			v := x.v
			g.Observe(digestAs(s.word, &v))
			return v
		}
	}
	who := whoIn(k, p)
	if t, ok := who.(*record.Thread); ok {
		// Recorded, where Slot cannot tell (gls's fallback, the race
		// detector's builds).
		s := runVar(&x.st, t)
		if s == nil {
			s = newRecVar[T](&x.st, t)
		}
		return recLoadFn(t, s.loc, s.word, func() T { return x.v })
	}
	if g := claim(who); g != nil {
		return x.loadControlled(g)
	}
	return x.v
}

// loadAgain repeats loadSlow's recorded load of x (location l) until the
// recorder r takes it, and returns the value and its digest.
//
//go:noinline
func (x *Var[T]) loadAgain(t *record.Thread, l *record.Loc, word bool, r record.Recorder) (T, uint64) {
	for {
		b := r.ReadBegin(t, l)
		v := x.v
		d := digestAs(word, &v)
		if !r.ReadEnd(t, l, b, d) {
			return v, d
		}
	}
}

// loadOther is loadSlow's recorded load of a Var whose state in t's run
// is s, or none yet (then it makes it), or whose values are not words.
//
//go:noinline
func (x *Var[T]) loadOther(t *record.Thread, s *varState) T {
	if s == nil || s.run != t.Run() {
		s = newRecVar[T](&x.st, t)
	}
	return recLoadFn(t, s.loc, s.word, func() T { return x.v })
}

//go:norace
func (x *Var[T]) loadControlled(g *sched.G) T {
	s := x.controlled(g)
	if s == nil {
		s = x.newControlled(g)
	}
	g.StepReady(opLoad, s.id)
	v := x.v
	g.Observe(digestAs(s.word, &v))
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

// storeSlow is Store in controlled or recording mode, the recorded store
// written out here as in loadSlow.
//
//go:noinline
func (x *Var[T]) storeSlow(v T) {
	k := gls.Self()
	p := k.Slot()
	if p != nil {
		if t, ok := (*p).(*record.Thread); ok {
			// runVar's, inlined; a Var new to the run, or whose values
			// are not words, takes storeOther.
			s := (*varState)(atomic.LoadPointer((*unsafe.Pointer)(unsafe.Pointer(&x.st))))
			if s == nil || s.run != t.Run() || !s.word {
				x.storeOther(t, s, v)
				return
			}
			l := s.loc
			r := t.Access(l)
			r.WriteBegin(t, l)
			x.v = v
			r.WriteEnd(t, l, sched.Write, 0, *(*uint64)(unsafe.Pointer(&v))) // the word: see digestAs
			return
		}
		if g, ok := (*p).(*sched.G); ok {
			// Controlled: claim's and storeControlled's, inlined (the
			// race detector's builds, which would see x.v here, have no
			// slot and take storeControlled below).
			if !g.Runs() && g.Claim() == nil {
				x.v = v // a goroutine that left the execution
				return
			}
			s := x.controlled(g)
			if s == nil {
				s = x.newControlled(g)
			}
			g.StepReady(opStore, s.id)
			x.v = v
			g.Wrote(digestAs(s.word, &v))
			return
		}
	}
	who := whoIn(k, p)
	if t, ok := who.(*record.Thread); ok {
		// Recorded, where Slot cannot tell.
		s := runVar(&x.st, t)
		if s == nil {
			s = newRecVar[T](&x.st, t)
		}
		recStoreFn(t, s.loc, s.word, v, func(v T) { x.v = v })
		return
	}
	if g := claim(who); g != nil {
		x.storeControlled(g, v)
		return
	}
	x.v = v
}

// storeOther is storeSlow's recorded store into a Var whose state in t's
// run is s, or none yet (then it makes it), or whose values are not words.
//
//go:noinline
func (x *Var[T]) storeOther(t *record.Thread, s *varState, v T) {
	if s == nil || s.run != t.Run() {
		s = newRecVar[T](&x.st, t)
	}
	recStoreFn(t, s.loc, s.word, v, func(v T) { x.v = v })
}

//go:norace
func (x *Var[T]) storeControlled(g *sched.G, v T) {
	s := x.controlled(g)
	if s == nil {
		s = x.newControlled(g)
	}
	g.StepReady(opStore, s.id)
	x.v = v
	g.Wrote(digestAs(s.word, &v))
}
