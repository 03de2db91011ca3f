package sim

import (
	"math"
	"reflect"
	"sync/atomic"
	"unsafe"

	"github.com/weftdev/weft/internal/fnv"
	"github.com/weftdev/weft/internal/gls"
	"github.com/weftdev/weft/record"
	"github.com/weftdev/weft/sched"
)

// Recording mode: on a goroutine of a recorded run (package record), a
// primitive behaves as in plain mode, truly in parallel, and reports each
// operation to the run's recorder: memory accesses with the recorder's
// brackets around them, synchronization from inside the region the
// primitive makes exclusive. A primitive's state for the run lives in its
// state slot, as under control, with its record.Loc; the slot is set with
// a compare-and-swap, since goroutines race to create it.

// recording returns the recorded goroutine the caller runs on, or nil. It
// is called only when gls.Active() and the caller is not controlled.
func recording() *record.Thread {
	if !gls.Active() {
		return nil
	}
	return record.Current()
}

// recState returns the state *slot for t's run, creating it when the slot
// is empty or belongs to another execution. Goroutines of the run may race
// to create it: one wins, and every one gets the winner's.
func recState[S any, P interface {
	*S
	obj() *object
}](slot *P, t *record.Thread) P {
	addr := (*unsafe.Pointer)(unsafe.Pointer(slot))
	for {
		old := atomic.LoadPointer(addr)
		if s := P(old); s != nil && s.obj().run == t.Run() {
			return s
		}
		s := P(new(S))
		*s.obj() = object{run: t.Run(), loc: t.NewLoc()}
		if i, ok := any(s).(recIniter); ok {
			i.recInit(t)
		}
		if atomic.CompareAndSwapPointer(addr, old, unsafe.Pointer(s)) {
			return s
		}
	}
}

// A recIniter is a state that recState initializes further for t's run
// (the lock a Mutex's state uses), before it is published.
type recIniter interface{ recInit(t *record.Thread) }

// digest returns a digest of a value read or written, for replays to
// compare: the value itself for integers, a hash for strings; 0 for values
// that are not comparable.
//
// The common types are tested one at a time, most common first: each test
// compares the type word of T's dictionary with a constant, cheaper than a
// type switch's jump on the type's hash, which the recorded accesses pay
// on every event.
func digest[T any](v *T) uint64 {
	if p, ok := any(v).(*int64); ok {
		return uint64(*p)
	}
	if p, ok := any(v).(*int); ok {
		return uint64(*p)
	}
	if p, ok := any(v).(*uint64); ok {
		return *p
	}
	if p, ok := any(v).(*int32); ok {
		return uint64(*p)
	}
	return digestOther(v)
}

// digestOther is digest of the other types.
func digestOther[T any](v *T) uint64 {
	switch p := any(v).(type) {
	case *uint32:
		return uint64(*p)
	case *uint:
		return uint64(*p)
	case *uintptr:
		return uint64(*p)
	case *bool:
		if *p {
			return 1
		}
		return 0
	case *float64:
		return math.Float64bits(*p)
	case *string:
		return fnv.String(*p)
	}
	return digestReflect(reflect.ValueOf(v).Elem())
}

// digestReflect digests the other comparable values; pointers by address
// would differ between runs, so they and other non-comparable values
// digest to 0.
func digestReflect(v reflect.Value) uint64 {
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return uint64(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint()
	case reflect.Bool:
		if v.Bool() {
			return 1
		}
		return 0
	case reflect.Float32, reflect.Float64:
		return math.Float64bits(v.Float())
	case reflect.String:
		return fnv.String(v.String())
	case reflect.Struct:
		h := fnv.Offset
		for i := 0; i < v.NumField(); i++ {
			h = fnv.Mix(h, digestReflect(v.Field(i)))
		}
		return h
	case reflect.Array:
		h := fnv.Offset
		for i := 0; i < v.Len(); i++ {
			h = fnv.Mix(h, digestReflect(v.Index(i)))
		}
		return h
	}
	return 0
}

// runVar returns the state of the Var or atomic whose state slot is st for
// t's run, or nil if the slot is empty or belongs to another execution
// (newRecVar makes it). It is inlined into the recorded accesses.
func runVar(st **varState, t *record.Thread) *varState {
	s := (*varState)(atomic.LoadPointer((*unsafe.Pointer)(unsafe.Pointer(st))))
	if s != nil && s.run == t.Run() {
		return s
	}
	return nil
}

// newRecVar returns the state of the Var or atomic whose state slot is st
// for t's run, creating it as recState does, with its digest's kind for T
// (see digestAs).
//
//go:noinline
func newRecVar[T any](st **varState, t *record.Thread) *varState {
	addr := (*unsafe.Pointer)(unsafe.Pointer(st))
	for {
		old := atomic.LoadPointer(addr)
		if s := (*varState)(old); s != nil && s.run == t.Run() {
			return s
		}
		s := &varState{object: object{run: t.Run(), loc: t.NewLoc()}, word: wordDigest[T]()}
		if atomic.CompareAndSwapPointer(addr, old, unsafe.Pointer(s)) {
			return s
		}
	}
}

// wordDigest reports whether the digest of a T is its 8 bytes as they
// are: a 64-bit integer or float, of any name.
func wordDigest[T any]() bool {
	var z T
	if unsafe.Sizeof(z) != 8 {
		return false
	}
	switch reflect.TypeFor[T]().Kind() {
	case reflect.Int, reflect.Int64, reflect.Uint, reflect.Uint64, reflect.Uintptr, reflect.Float64:
		return true
	}
	return false
}

// digestAs is digest(v), for a location whose values are words (see
// wordDigest) if word: then a load of the value itself.
func digestAs[T any](word bool, v *T) uint64 {
	if word {
		return *(*uint64)(unsafe.Pointer(v))
	}
	return digest(v)
}

// recSync begins a synchronization operation of t on the object whose
// state slot is slot, and returns the object's location and the recorder:
// the caller reports the access with Sync from inside the exclusive region.
func recSync[S any, P interface {
	*S
	obj() *object
}](slot *P, t *record.Thread) (P, *record.Loc, record.Recorder) {
	s := recState(slot, t)
	l := s.obj().loc
	return s, l, t.Access(l)
}

// The memory operations of the atomics, in controlled and recording mode
// (the caller checked gls.Active), on the goroutine whose goroutine-local
// value is who (see whoOf). They take the operation as a function value,
// which does not escape: no allocation per call. The integers' recorded
// paths are written out in atomic_gen.go, and call these when
// gls.Key.Slot does not tell at once that the goroutine is recorded.

// atomicLoad performs a load of the location whose state slot is st.
func atomicLoad[T any](who any, st **varState, load func() T) T {
	if t, ok := who.(*record.Thread); ok {
		s := runVar(st, t)
		if s == nil {
			s = newRecVar[T](st, t)
		}
		return recLoadFn(t, s.loc, s.word, load)
	}
	if g, ok := who.(*sched.G); ok && (g.Runs() || g.Claim() != nil) {
		g.StepReady(opAtomicLoad, stateOf(st, g).id)
		v := load()
		g.Observe(digest(&v))
		return v
	}
	return load()
}

// atomicStore performs a store of v.
func atomicStore[T any](who any, st **varState, v T, store func(T)) {
	if t, ok := who.(*record.Thread); ok {
		s := runVar(st, t)
		if s == nil {
			s = newRecVar[T](st, t)
		}
		recStoreFn(t, s.loc, s.word, v, store)
		return
	}
	if g, ok := who.(*sched.G); ok && (g.Runs() || g.Claim() != nil) {
		g.StepReady(opAtomicStore, stateOf(st, g).id)
		store(v)
		g.Wrote(digest(&v))
		return
	}
	store(v)
}

// pollIfFailed tells the controller that g polled if op is a
// CompareAndSwap that failed: a CAS loop waits for another goroutine.
func pollIfFailed[R any](g *sched.G, op *sched.Op, res R) {
	if op == opAtomicCAS {
		if ok, _ := any(res).(bool); !ok {
			g.Polled()
		}
	}
}

// atomicRMW performs a read-modify-write: f does it and returns its result
// and digests of the value it read and of the value it left.
func atomicRMW[R any](who any, st **varState, op *sched.Op, f func() (R, uint64, uint64)) R {
	if t, ok := who.(*record.Thread); ok {
		s := runVar(st, t)
		if s == nil {
			s = recState(st, t) // its values' kind is not known: R is the result's type
		}
		return recRMWFn(t, s.loc, f)
	}
	if g, ok := who.(*sched.G); ok && (g.Runs() || g.Claim() != nil) {
		g.StepReady(op, stateOf(st, g).id)
		res, read, left := f()
		g.Observe(read)
		g.Wrote(left)
		pollIfFailed(g, op, res)
		return res
	}
	res, _, _ := f()
	return res
}

// newRecWord is newRecVar for the integer atomics, whose recorded paths
// digest their values themselves.
//
//go:noinline
func newRecWord(st **varState, t *record.Thread) *varState { return newRecVar[uint64](st, t) }

// recLoadFn performs a recorded load of l with load; word tells that the
// values are words (see digestAs).
func recLoadFn[T any](t *record.Thread, l *record.Loc, word bool, load func() T) T {
	r := t.Access(l)
	for {
		b := r.ReadBegin(t, l)
		v := load()
		d := digestAs(word, &v)
		if !r.ReadEnd(t, l, b, d) {
			t.Observe(d)
			return v
		}
	}
}

// recStoreFn performs a recorded store of v into l with store; word tells
// that the values are words (see digestAs).
func recStoreFn[T any](t *record.Thread, l *record.Loc, word bool, v T, store func(T)) {
	r := t.Access(l)
	r.WriteBegin(t, l)
	store(v)
	r.WriteEnd(t, l, sched.Write, 0, digestAs(word, &v))
}

// recRMWFn performs a recorded read-modify-write of l with f.
func recRMWFn[R any](t *record.Thread, l *record.Loc, f func() (R, uint64, uint64)) R {
	r := t.Access(l)
	r.WriteBegin(t, l)
	res, read, written := f()
	r.WriteEnd(t, l, sched.ReadWrite, read, written)
	t.Observe(read)
	return res
}

// d64 digests an atomic's value.
func d64[T any](v T) uint64 { return digest(&v) }

// A recWaiter is a goroutine of a recorded run blocked in a monitor: whoever
// releases it (under the monitor) may report its access on its behalf, then
// closes ch.
type recWaiter struct {
	t        *record.Thread
	ch       chan struct{}
	released bool
	armed    bool // Cond: the waiter began its second operation and blocks
}

func newRecWaiter(t *record.Thread) *recWaiter {
	return &recWaiter{t: t, ch: make(chan struct{})}
}

// wait blocks until w is released.
func (w *recWaiter) wait() {
	<-w.ch
}
