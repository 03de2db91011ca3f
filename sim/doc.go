// Package sim provides the concurrency primitives of a weft test: Go,
// Mutex, RWMutex, WaitGroup, Cond, Once, channels (Chan and Select), shared
// variables (Var), atomics, virtual time (Sleep, Now, timers) and random
// choices (Intn).
//
// Every primitive works in two modes, chosen per call by the goroutine that
// calls it:
//
//   - Plain: outside a weft execution, a primitive behaves like its standard
//     library twin, safely from any goroutine, at close to its cost. Code can
//     keep sim types in production builds.
//   - Controlled: on a goroutine of an execution (the body of weft.Check and
//     the goroutines it starts with Go), every operation is an event of the
//     schedule controller (package sched): the goroutine pauses before it,
//     and the controller decides which goroutine runs next. Time is virtual,
//     and Intn and select draw their choices from the schedule, so an
//     execution replays exactly.
//
// Zero values are ready to use wherever the standard library's are. A value
// belongs to one execution at a time: its synchronization state (who holds a
// lock, what a channel buffers, a WaitGroup's count, whether a Once ran)
// starts afresh in each execution that uses it, while the values held by Var
// and the atomics are plain memory and persist.
//
// Semantics follow Go's: sending on a closed channel panics, closing twice
// panics, a receive from a closed channel drains the buffer and then yields
// zero values, operations on a nil channel block forever, unlocking an
// unlocked mutex panics, a negative WaitGroup counter panics. Under control,
// operations that can never proceed are reported as a deadlock (or a leak,
// if the test body has returned) with each goroutine's blocked operation.
package sim

import (
	"github.com/weftdev/weft/internal/gls"
	"github.com/weftdev/weft/sched"
)

// object is the per-execution identity every primitive's controlled state
// embeds.
type object struct {
	c  *sched.Controller
	id uint32
}

func (o *object) obj() *object { return o }

// stateOf returns the controlled state *slot for g's execution, creating it
// afresh when the slot is empty or belongs to another execution.
func stateOf[S any, P interface {
	*S
	obj() *object
}](slot *P, g *sched.G) P {
	if s := *slot; s != nil && s.obj().c == g.Controller() {
		return s
	}
	s := P(new(S))
	*s.obj() = object{c: g.Controller(), id: g.NewObject()}
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

// The operations of the primitives, as events and traces name them.
var (
	opGo          = sched.NewOp("go")
	opLock        = sched.NewOp("Mutex.Lock")
	opUnlock      = sched.NewOp("Mutex.Unlock")
	opTryLock     = sched.NewOp("Mutex.TryLock")
	opRWLock      = sched.NewOp("RWMutex.Lock")
	opRWLockWait  = sched.NewOp("RWMutex.Lock(wait readers)")
	opRWUnlock    = sched.NewOp("RWMutex.Unlock")
	opRLock       = sched.NewOp("RWMutex.RLock")
	opRLockWait   = sched.NewOp("RWMutex.RLock(wait writer)")
	opRUnlock     = sched.NewOp("RWMutex.RUnlock")
	opRWTryLock   = sched.NewOp("RWMutex.TryLock")
	opTryRLock    = sched.NewOp("RWMutex.TryRLock")
	opWGAdd       = sched.NewOp("WaitGroup.Add")
	opWGDone      = sched.NewOp("WaitGroup.Done")
	opWGWait      = sched.NewOp("WaitGroup.Wait")
	opCondWait    = sched.NewOp("Cond.Wait")
	opCondSignal  = sched.NewOp("Cond.Signal")
	opCondBcast   = sched.NewOp("Cond.Broadcast")
	opOnce        = sched.NewOp("Once.Do")
	opSend        = sched.NewOp("Chan.Send")
	opRecv        = sched.NewOp("Chan.Recv")
	opClose       = sched.NewOp("Chan.Close")
	opLen         = sched.NewOp("Chan.Len")
	opSelect      = sched.NewOp("Select")
	opLoad        = sched.NewOp("Var.Load")
	opStore       = sched.NewOp("Var.Store")
	opAtomicLoad  = sched.NewOp("atomic.Load")
	opAtomicStore = sched.NewOp("atomic.Store")
	opAtomicSwap  = sched.NewOp("atomic.Swap")
	opAtomicCAS   = sched.NewOp("atomic.CompareAndSwap")
	opAtomicAdd   = sched.NewOp("atomic.Add")
	opSleep       = sched.NewOp("Sleep")
	opNow         = sched.NewOp("Now")
	opTimerNew    = sched.NewOp("Timer.New")
	opTimerStop   = sched.NewOp("Timer.Stop")
	opTimerReset  = sched.NewOp("Timer.Reset")
	opIntn        = sched.NewOp("Intn")
	opYield       = sched.NewOp("Yield")
)
