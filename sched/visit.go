package sched

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"

	"github.com/weftdev/weft/internal/race"
)

// Visits. A goroutine outside the execution (started in plain mode before
// it: a purge loop that package initialization started; or one that the
// standard library started from a goroutine of the execution, which left
// it: a server's handler) may send on one of its channels, close one,
// signal one of its conds, or lock one of its mutexes: ants' default
// pool takes the workers that look idle from its queue, then hands each a
// nil on its channel, which the execution's worker waits on. Done on the
// channel's plain state, the send is lost to the execution: the worker
// waits forever, the test leaks, and the pool counts that worker as
// running for good, so that a later Reboot waits for it (ExamplePool hung
// until go test's -timeout). Instead, the goroutine outside asks the
// controller to perform the operation on the execution's side of the
// object (Visit) and waits: when no goroutine of the execution can run (a
// stall, where a failure would otherwise be declared, or a timer fired),
// the controller performs every pending visit that can complete, as
// though the goroutine outside had run just then, which a Go scheduler
// may do. An execution that had visits and stalls waits a while in real
// time for the next one before it fails: a purge loop sends to its workers
// one after the other.
//
// Under the race detector, which sees no synchronization inside a step,
// there are no visits: the goroutine outside goes on as Controller.Outside
// describes.
//
// No replay runs that goroutine again: an execution that had visits and
// fails is reported as Outside, not saved; one that passes passed. A visit
// still pending when its execution ends goes back to plain mode, and the
// execution fails as Outside, as for Controller.Outside.

// visitLinger bounds the real time a stalled execution that had visits
// waits for the next one before it fails;
// visitFirst bounds it for the first visit, and visitRound is the wait's
// round.
const (
	visitLinger = 500 * time.Millisecond
	visitFirst  = 50 * time.Millisecond
	visitRound  = 10 * time.Millisecond
)

// A visit is one pending operation of a goroutine outside the execution.
type visit struct {
	try    func(g *G) bool // performs it, if it can complete now
	result chan bool       // true: performed; false: the execution ended first
	state  atomic.Int32    // visitPending, visitTrying or visitWithdrawn
}

// The states of a visit: the controller tries it (pending to trying, and
// back if it cannot complete yet), or its visitor withdraws it (pending
// to withdrawn) when the execution stopped moving, or holds it while it
// polls the world outside (pending to polling, and back; see VisitOr).
const (
	visitPending = iota
	visitTrying
	visitWithdrawn
	visitPolling
)

// visitStuck is how long a visitor waits for an execution that does not
// move while no other goroutine of the process runs or could (no event,
// no stall: its running goroutine waits for something weft does not
// control, which may be the visitor itself) before it withdraws its visit
// and goes on in plain mode, as Controller.Outside's callers do. Time in
// which some goroutine could run does not count: on a loaded machine the
// execution's goroutine may merely wait for a processor.
const visitStuck = 100 * time.Millisecond

// visitHold bounds the real time a stalled execution waits for visits
// while other goroutines of the process can run (see awaitVisit).
const visitHold = 10 * time.Second

// othersRun reports whether a goroutine of the process other than the
// caller runs or can run (the Go scheduler's counts): a goroutine outside
// the execution may be on its way to a visit, or the execution's running
// goroutine may be waiting for a processor.
func othersRun() bool {
	s := [2]metrics.Sample{{Name: "/sched/goroutines/runnable:goroutines"}, {Name: "/sched/goroutines/running:goroutines"}}
	metrics.Read(s[:])
	n := 0
	for _, x := range s {
		if x.Value.Kind() == metrics.KindUint64 {
			n += int(x.Value.Uint64())
		}
	}
	return n > 1
}

// A visitQueue is an execution's pending visits, and what its first
// visitor was doing, for its report.
type visitQueue struct {
	reqs    []*visit
	arrived chan struct{} // a visit arrived (capacity 1)
	first   visitor
}

// A visitor is a goroutine outside the execution, as its first visit found
// it: the operation, its object and what it is, and the goroutine's stack.
type visitor struct {
	op    *Op
	obj   uint32
	what  string
	block string
	pcs   []uintptr
}

// visitors holds the pending visits of the executions under way, by
// execution number; pending counts them, so that a stall in an execution
// that has none takes no lock to learn it.
var visitors struct {
	pending atomic.Int64
	mu      sync.Mutex
	byExec  map[uint64]*visitQueue
}

// Visit asks c, which runs or ran execution exec, to perform an operation
// of the calling goroutine, which runs outside every execution (plain
// mode), on one of exec's objects: obj (its number), what it is (its Go
// type) and op. try performs the operation on the object's controlled
// state, on a goroutine of the execution while none of them runs, and
// reports whether it could complete; it is tried at every stall until it
// does. Visit waits, and reports whether try completed; false when exec is
// over or ends first (the execution then fails as Outside), was abandoned
// by the watchdog, or stopped moving for visitStuck: the caller then goes on as Outside's callers do,
// in plain mode. It is for package sim, from the plain path of an
// operation whose object's state belongs to an execution.
func (c *Controller) Visit(exec uint64, op *Op, obj uint32, what string, try func(g *G) bool) bool {
	return c.VisitOr(exec, op, obj, what, try, nil)
}

// VisitOr is Visit for an operation that may also complete outside the
// execution: a select of a goroutine outside it, with cases on the
// execution's channels and on others (a request's context, a ticker of
// its own). poll, if not nil, is called on the calling goroutine at every
// round of visitRound while the visit waits, the visit held meanwhile (the
// controller does not try it): it performs the operation on what is not
// the execution's if it can at once, and reports whether it did. The
// visit is then withdrawn, and VisitOr reports true: the caller knows
// which of try and poll completed it.
func (c *Controller) VisitOr(exec uint64, op *Op, obj uint32, what string, try func(g *G) bool, poll func() bool) bool {
	if race.Enabled || c.live.Load() != exec || c.abandoned.Load() {
		// Under the race detector a step hides its synchronization,
		// the visit's included: the visitor's use goes on as Outside's.
		return false
	}
	v := &visit{try: try, result: make(chan bool, 1)}
	// pending first, then live: the end of the execution stores live,
	// then reads pending (see endVisits).
	visitors.pending.Add(1)
	visitors.mu.Lock()
	if c.live.Load() != exec {
		visitors.pending.Add(-1)
		visitors.mu.Unlock()
		return false
	}
	q := visitors.byExec[exec]
	if q == nil {
		var pcs [128]uintptr
		n := runtime.Callers(2, pcs[:])
		q = &visitQueue{arrived: make(chan struct{}, 1),
			first: visitor{op, obj, what, string(debug.Stack()), pcs[:n:n]}}
		if visitors.byExec == nil {
			visitors.byExec = make(map[uint64]*visitQueue)
		}
		visitors.byExec[exec] = q
	}
	q.reqs = append(q.reqs, v)
	select {
	case q.arrived <- struct{}{}:
	default:
	}
	visitors.mu.Unlock()
	tick := time.NewTicker(visitRound)
	defer tick.Stop()
	last, still := c.look(), time.Duration(0)
	for {
		select {
		case ok := <-v.result:
			return ok
		case <-tick.C:
		}
		if c.abandoned.Load() && v.state.CompareAndSwap(visitPending, visitWithdrawn) {
			return false // the watchdog gave up on the execution: no goroutine of it decides
		}
		if poll != nil && v.state.CompareAndSwap(visitPending, visitPolling) {
			if poll() {
				v.state.Store(visitWithdrawn)
				return true
			}
			v.state.Store(visitPending)
			// State first, then live: the end of the execution stores
			// live, then refuses the visits pending (endVisits), so one
			// of the two sees the other.
			if c.live.Load() != exec && v.state.CompareAndSwap(visitPending, visitWithdrawn) {
				return false
			}
		}
		if p := c.look(); p != last || othersRun() {
			last, still = p, 0
			continue
		}
		still += visitRound
		if still >= visitStuck && v.state.CompareAndSwap(visitPending, visitWithdrawn) {
			return false
		}
	}
}

// serveVisits performs, on g (the goroutine deciding), the pending visits
// of the execution that can complete now, and reports whether any did.
//
//go:norace
func (c *Controller) serveVisits(g *G) bool {
	if visitors.pending.Load() == 0 || c.aborting || c.abandoned.Load() {
		return false
	}
	visitors.mu.Lock()
	q := visitors.byExec[c.seq]
	var reqs []*visit
	if q != nil {
		reqs, q.reqs = q.reqs, nil
		visitors.pending.Add(-int64(len(reqs)))
	}
	visitors.mu.Unlock()
	var keep []*visit
	served := false
	for _, v := range reqs {
		if !v.state.CompareAndSwap(visitPending, visitTrying) {
			if v.state.Load() != visitWithdrawn {
				keep = append(keep, v) // its visitor polls: tried next time
			}
			continue // withdrawn: dropped
		}
		if !v.try(g) {
			v.state.Store(visitPending)
			keep = append(keep, v)
			continue
		}
		served = true
		c.visits++
		c.mix(opVisit.hash)
		v.result <- true
	}
	if len(keep) > 0 {
		visitors.mu.Lock()
		q.reqs = append(keep, q.reqs...)
		visitors.pending.Add(int64(len(keep)))
		visitors.mu.Unlock()
	}
	if !served {
		return false
	}
	// The world outside moved: goroutines away are waited for anew.
	c.visitWait, c.visitHeld, c.back.waited = 0, 0, 0
	c.progressed()
	return true
}

// visitArrived returns the channel that tells of a visit to the execution
// arriving, or nil if none ever did.
//
//go:norace
func (c *Controller) visitArrived() chan struct{} {
	visitors.mu.Lock()
	defer visitors.mu.Unlock()
	if q := visitors.byExec[c.seq]; q != nil {
		return q.arrived
	}
	return nil
}

// awaitVisit waits in real time, at a stall that would fail the
// execution, for a visit, and performs it; it reports whether it did. An
// execution that had visits, or to which one arrived (a select that may
// complete outside it, see VisitOr, then visit again), waits up to
// visitLinger since the last one was performed (a purge loop sends to one
// worker after the other). One that had none, when goroutines outside it
// may be about to visit (the loop took the workers and is about to send),
// waits up to visitFirst if
// some used weft's primitives during the execution (NoteOutside), or a
// round if the process started goroutines in plain mode (NotePlainGo), or
// code weft does not rewrite started some during the execution (which
// leave it at their first operation of weft's: see Controller.stray):
// a deadlock found in a process with a goroutine started in init costs
// its minimization's replays a round each. Others do not wait.
//
//go:norace
func (c *Controller) awaitVisit(g *G) bool {
	if c.aborting {
		return false
	}
	linger := visitLinger
	if c.visits == 0 && c.visitArrived() == nil {
		switch {
		case outsideOps.Load() != c.outsideMark:
			linger = visitFirst
		case plainGo.Load() || !race.Enabled && c.startedOthers():
			linger = visitRound
		default:
			return false
		}
	}
	for c.visitWait < linger && !c.abandoned.Load() {
		visitors.mu.Lock()
		q := visitors.byExec[c.seq]
		visitors.mu.Unlock()
		var arrived chan struct{}
		if q != nil {
			arrived = q.arrived
		}
		d := min(visitRound, linger-c.visitWait)
		t := time.NewTimer(d)
		select {
		case <-arrived:
		case <-t.C:
			// A round in which some goroutine could run (the visitor,
			// on a loaded machine) does not count, up to visitHold.
			if c.visitHeld += d; !othersRun() || c.visitHeld >= visitHold {
				c.visitWait += d
			}
		}
		t.Stop()
		if c.serveVisits(g) {
			return true
		}
	}
	return false
}

// awaitVisitBefore waits in real time, at a stall where the next timer is
// due in in, for a visit to arrive, and performs it; it reports whether it
// did. Only an execution that had visits, or to which one arrived, waits:
// a goroutine outside it that works with it (a server's handler) runs in
// real time, and the clock, which jumps to the next timer, would leave it
// behind (statedb's test waits a virtual second for its handler to close
// its change iterator, 100 polls of 10 ms, done in a millisecond of real
// time, before the handler saw its request canceled). It waits up to in,
// a round at a time, and up to visitLinger in all since a visit was last
// performed, as awaitVisit does, after which the clock runs free again.
//
//go:norace
func (c *Controller) awaitVisitBefore(g *G, in time.Duration) bool {
	if in <= 0 || c.visits == 0 && visitors.pending.Load() == 0 || c.aborting || c.abandoned.Load() ||
		c.visitWait >= visitLinger {
		return false
	}
	arrived := c.visitArrived()
	if arrived == nil {
		return false
	}
	d := min(in, visitRound, visitLinger-c.visitWait)
	t := time.NewTimer(d)
	select {
	case <-arrived:
	case <-t.C:
		c.visitWait += d
	}
	t.Stop()
	return c.serveVisits(g)
}

// startedOthers reports whether the process started goroutines since the
// execution began, other than weft's own (its workers, relays, janitors):
// goroutines that the standard library or code weft does not rewrite
// started, from the execution's goroutines or elsewhere, and which may be
// about to visit it.
//
//go:norace
func (c *Controller) startedOthers() bool {
	return c.goroutinesCreated()-c.created > uint64(c.workers)+c.relays.Load()+janitors.Load()-c.janitor
}

// outsideOps counts the operations of goroutines outside every execution
// made while one ran (NoteOutside).
var outsideOps atomic.Uint64

// NoteOutside records that the calling goroutine, outside every
// execution, performed an operation of weft's primitives while one ran:
// a stall that would fail an execution during which one did waits a
// moment for a visit (see awaitVisit). It is for package sim, whose
// plain paths call it while an execution runs in the process.
func NoteOutside() { outsideOps.Add(1) }

// plainGo is set once a goroutine was started in plain mode (NotePlainGo).
var plainGo atomic.Bool

// NotePlainGo records that a goroutine of instrumented code was started
// in plain mode (in init, by TestMain, by a test weft does not run): one
// that may visit the executions later (see awaitVisit). It is for package
// sim's Go; it writes once.
func NotePlainGo() {
	if !plainGo.Load() {
		plainGo.Store(true)
	}
}

// endVisits ends the time in which goroutines outside the execution can
// visit it (it stores live's 0, as takeOutside does), sends the pending
// visitors back to plain mode, and returns its first visitor and whether
// any visit was refused; ok is false if there was no visit.
func (c *Controller) endVisits() (first visitor, refused, ok bool) {
	// live first, then pending: a visitor counts itself in pending
	// before it reads live (see Visit).
	c.live.Store(0)
	if c.visits == 0 && visitors.pending.Load() == 0 {
		return visitor{}, false, false
	}
	visitors.mu.Lock()
	q := visitors.byExec[c.seq]
	delete(visitors.byExec, c.seq)
	var reqs []*visit
	if q != nil {
		reqs = q.reqs
		visitors.pending.Add(-int64(len(reqs)))
	}
	visitors.mu.Unlock()
	if q == nil {
		return visitor{}, false, false
	}
	for _, v := range reqs {
		if v.state.CompareAndSwap(visitPending, visitWithdrawn) {
			refused = true
			v.result <- false
		}
	}
	return q.first, refused, true
}

// visitFailure describes the first visit of an execution that failed, or
// one whose visits did not all complete (refused).
func visitFailure(v visitor, refused bool) *Failure {
	f := outsideFailure(v.op, v.obj, v.what, v.block, v.pcs)
	if !refused {
		f.Message += "\nweft performed its operations on the execution's objects when none of the execution's goroutines could run," +
			" as though it ran just then; the failure after this one may depend on when it ran."
	}
	return f
}
