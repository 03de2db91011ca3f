package sim

// The mode machinery: which mode a call runs in (who), and the state each
// primitive keeps per execution (stateOf). The operations' names follow.

import (
	"fmt"
	"unsafe"

	"github.com/weftdev/weft/internal/gls"
	"github.com/weftdev/weft/record"
	"github.com/weftdev/weft/sched"
)

// object is the per-execution identity every primitive's state embeds:
// under control, its execution, the controller that runs it and its
// number; recording, its run and location.
type object struct {
	exec uint64 // the execution (sched.Controller.Execution)
	ctl  *sched.Controller
	id   uint32
	run  *record.Session
	loc  *record.Loc
}

func (o *object) obj() *object { return o }

// stateOf returns the controlled state *slot for g's execution, creating it
// afresh when the slot is empty or belongs to another execution.
//
//go:norace
func stateOf[S any, P interface {
	*S
	obj() *object
}](slot *P, g *sched.G) P {
	s, _ := newState(slot, g)
	return s
}

// newState is stateOf, and reports whether the state was made now: the
// object's first use in the execution, where a primitive whose plain state
// can outlast an execution (a channel closed at package init, a Once done
// before the test) starts its controlled state from it.
//
//go:norace
func newState[S any, P interface {
	*S
	obj() *object
}](slot *P, g *sched.G) (P, bool) {
	// The object is read where it is, not through obj: a call through
	// the instantiation's dictionary at every event otherwise.
	if s := *slot; s != nil && (*object)(unsafe.Pointer(s)).exec == g.Controller().Execution() {
		return s, false
	}
	return makeState(slot, g), true
}

// makeState makes g's execution's state of a primitive in *slot, for
// newState, which reads its object at the state's start: every state's
// first field is its object.
//
//go:norace
func makeState[S any, P interface {
	*S
	obj() *object
}](slot *P, g *sched.G) P {
	s := P(new(S))
	if s.obj() != (*object)(unsafe.Pointer(s)) {
		panic(fmt.Sprintf("weft: %T does not start with its object", s))
	}
	c := g.Controller()
	*s.obj() = object{exec: c.Execution(), ctl: c, id: g.NewObject()}
	*slot = s
	return s
}

// current returns the controlled goroutine the caller runs on, or nil in
// plain mode, like sched.Current. It is inlined into every primitive: while
// no execution runs in the process, plain mode costs one atomic load and no
// call.
func current() *sched.G {
	if !gls.Active() {
		return nil
	}
	return sched.Current()
}

// who returns the controlled goroutine or the recorded one the caller runs
// on, with one goroutine-local lookup; both nil in plain mode. It is
// inlined: while no execution runs in the process, it costs one atomic
// load and no call.
func who() (g *sched.G, t *record.Thread) {
	if gls.Active() {
		g, t = lookup()
	}
	return
}

// lookup is who's lookup when an execution runs in the process. Like
// every recorded path, it calls gls.Get only when gls's inlined lookup
// (gls.Self, then Key.Value) cannot answer: the two lines are written out
// where they are used, since a function of their own would be too big to
// inline, and the call is what they save.
func lookup() (*sched.G, *record.Thread) {
	v, ok := gls.Self().Value()
	if !ok {
		v = gls.Get()
	}
	if t, ok := v.(*record.Thread); ok {
		return nil, t
	}
	g, _ := v.(*sched.G)
	if g == nil || g.Runs() {
		return g, nil
	}
	return g.Claim(), nil // nil: the caller left the execution (see sched.G.Claim)
}

// whoOf returns the goroutine-local value of the goroutine whose key is
// k, as lookup looks it up. The hottest recorded paths (a Var's, the
// integer atomics', a Mutex's) test for a recorded goroutine with
// gls.Key.Slot first, written out, and call whoOf on their other paths.
//
// gls.Key.Slot is inlined into the Var's paths, which are generic, only
// because sim's other code inlines it too: the compiler instantiates a
// generic function in the package that uses it, and inlines there only
// what sim's own export data carries.
func whoOf(k gls.Key) any {
	v, ok := k.Value()
	if !ok {
		v = gls.Get()
	}
	return v
}

// whoIn returns the goroutine-local value of the goroutine whose key is k
// and slot p (as k.Slot returned it): whoOf's, looked up again only if p
// is nil.
func whoIn(k gls.Key, p *any) any {
	if p != nil {
		return *p
	}
	return whoOf(k)
}

// claim returns the controlled goroutine v is, claimed, or nil (also when
// the caller left the execution: see sched.G.Claim). The recording paths
// test for a recorded goroutine first, inline (a type assertion compares
// the value's type word with a constant), and call claim if it is not
// one; the hottest write it out, since it is not inlined (Claim is not:
// claim's test with G.Runs, then Claim, costs two calls).
func claim(v any) *sched.G {
	if g, ok := v.(*sched.G); ok && (g.Runs() || g.Claim() != nil) {
		return g
	}
	return nil
}

// The operations of the primitives, as events and traces name them.
var (
	opGo          = sched.NewOp("go")
	opLock        = sched.NewAccessOp("Mutex.Lock", sched.ReadWrite)
	opUnlock      = sched.NewAccessOp("Mutex.Unlock", sched.Write)
	opTryLock     = sched.NewAccessOp("Mutex.TryLock", sched.ReadWrite)
	opRWLock      = sched.NewAccessOp("RWMutex.Lock", sched.ReadWrite)
	opRWLockWait  = sched.NewAccessOp("RWMutex.Lock(wait readers)", sched.ReadWrite)
	opRWUnlock    = sched.NewAccessOp("RWMutex.Unlock", sched.ReadWrite)
	opRLock       = sched.NewAccessOp("RWMutex.RLock", sched.ReadWrite)
	opRLockWait   = sched.NewAccessOp("RWMutex.RLock(wait writer)", sched.ReadWrite)
	opRUnlock     = sched.NewAccessOp("RWMutex.RUnlock", sched.ReadWrite)
	opRWTryLock   = sched.NewAccessOp("RWMutex.TryLock", sched.ReadWrite)
	opTryRLock    = sched.NewAccessOp("RWMutex.TryRLock", sched.ReadWrite)
	opWGAdd       = sched.NewAccessOp("WaitGroup.Add", sched.ReadWrite)
	opWGDone      = sched.NewAccessOp("WaitGroup.Done", sched.ReadWrite)
	opWGWait      = sched.NewAccessOp("WaitGroup.Wait", sched.Read)
	opCondWait    = sched.NewAccessOp("Cond.Wait", sched.ReadWrite)
	opCondSignal  = sched.NewAccessOp("Cond.Signal", sched.ReadWrite)
	opCondBcast   = sched.NewAccessOp("Cond.Broadcast", sched.ReadWrite)
	opOnce        = sched.NewAccessOp("Once.Do", sched.ReadWrite)
	opSend        = sched.NewAccessOp("Chan.Send", sched.ReadWrite)
	opRecv        = sched.NewAccessOp("Chan.Recv", sched.ReadWrite)
	opClose       = sched.NewAccessOp("Chan.Close", sched.ReadWrite)
	opLen         = sched.NewAccessOp("Chan.Len", sched.Read)
	opSelect      = sched.NewAccessOp("Select", sched.ReadWrite)
	opLoad        = sched.NewAccessOp("Var.Load", sched.Read)
	opStore       = sched.NewAccessOp("Var.Store", sched.Write)
	opAtomicLoad  = sched.NewAccessOp("atomic.Load", sched.Read)
	opAtomicStore = sched.NewAccessOp("atomic.Store", sched.Write)
	opAtomicSwap  = sched.NewAccessOp("atomic.Swap", sched.ReadWrite)
	opAtomicCAS   = sched.NewTryOp("atomic.CompareAndSwap")
	opAtomicAdd   = sched.NewAccessOp("atomic.Add", sched.ReadWrite)
	opSleep       = sched.NewPureOp("Sleep")
	opNow         = sched.NewPureOp("Now")
	opTimerNew    = sched.NewOp("Timer.New")
	opTimerStop   = sched.NewOp("Timer.Stop")
	opTimerReset  = sched.NewOp("Timer.Reset")
	opIntn        = sched.NewPureOp("Intn")
	opYield       = sched.NewPureOp("Yield")
)
