package sim

import (
	"math/rand/v2"
	"reflect"
	"slices"

	"github.com/weftdev/weft/sched"
)

// A Case is one case of a Select: made by OnSend, OnRecv, OnRecvOK or
// OnDefault.
type Case interface {
	// Controlled mode.
	bind(g *sched.G)
	queue(sel *selection, idx int)
	unqueue()
	ready(sel *selection) bool
	commit(sel *selection)
	completed() // a partner completed this case while the select waited
	// Plain mode.
	try() bool // non-blocking attempt; runs the callback when it succeeds
	reflectCase() reflect.SelectCase
	reflected(v reflect.Value, ok bool)
	isDefault() bool
}

// Select waits until one of its cases can proceed, performs it, runs the
// case's function (if not nil) and returns the case's index, like Go's
// select statement:
//
//	switch sim.Select(
//		sim.OnRecv(jobs, func(j Job) { run(j) }),
//		sim.OnSend(results, r, nil),
//		sim.OnDefault(nil),
//	) {
//	case 2: // nothing was ready
//	}
//
// If several cases are ready, one is chosen at random (under control, the
// choice is part of the schedule). With an OnDefault case, Select does not
// wait. Cases on nil channels never proceed; a Select without cases blocks
// forever. At most one OnDefault case is allowed.
func Select(cases ...Case) int {
	def := -1
	for i, c := range cases {
		if c.isDefault() {
			if def >= 0 {
				panic("sim.Select: multiple default cases")
			}
			def = i
		}
	}
	if g := current(); g != nil {
		return selectControlled(g, cases, def)
	}
	return selectPlain(cases, def)
}

// selectReady is the Waiter of a select without default.
type selectReady struct {
	sel   *selection
	cases []Case
}

func (w *selectReady) Ready() bool {
	if w.sel.done {
		return true
	}
	for _, c := range w.cases {
		if c.ready(w.sel) {
			return true
		}
	}
	return false
}

func selectControlled(g *sched.G, cases []Case, def int) int {
	for _, c := range cases {
		c.bind(g)
	}
	sel := &selection{}
	if def >= 0 {
		g.Step(opSelect, 0, nil)
	} else {
		for i, c := range cases {
			c.queue(sel, i)
		}
		// A copy, so that the caller's variadic slice does not escape and
		// plain mode need not allocate it.
		g.Step(opSelect, 0, &selectReady{sel: sel, cases: slices.Clone(cases)})
		for _, c := range cases {
			c.unqueue()
		}
		if sel.done {
			cases[sel.idx].completed()
			return sel.idx
		}
	}
	var ready []int
	for i, c := range cases {
		if i != def && c.ready(sel) {
			ready = append(ready, i)
		}
	}
	if len(ready) == 0 {
		cases[def].commit(sel)
		return def
	}
	i := ready[g.Choose(len(ready))]
	cases[i].commit(sel)
	return i
}

func selectPlain(cases []Case, def int) int {
	// Fast path: try the cases without blocking, starting at a random one,
	// as cheap as a select with a default on each channel.
	n := len(cases)
	if n > 0 {
		start := rand.IntN(n)
		for k := range n {
			i := (start + k) % n
			if i != def && cases[i].try() {
				return i
			}
		}
	}
	if def >= 0 {
		cases[def].commit(nil)
		return def
	}
	rcs := make([]reflect.SelectCase, n)
	for i, c := range cases {
		rcs[i] = c.reflectCase()
	}
	i, v, ok := reflect.Select(rcs)
	cases[i].reflected(v, ok)
	return i
}

// OnSend is a Select case that sends v on c, then calls f (if not nil).
func OnSend[T any](c *Chan[T], v T, f func()) Case {
	return &sendCase[T]{c: c, v: v, f: f}
}

// OnRecv is a Select case that receives a value from c and passes it to f
// (if not nil). From a closed channel it receives the zero value.
func OnRecv[T any](c *Chan[T], f func(v T)) Case {
	return &recvCase[T]{c: c, f: f}
}

// OnRecvOK is a Select case like OnRecv that also passes whether the value
// came from a send (false: c is closed and drained).
func OnRecvOK[T any](c *Chan[T], f func(v T, ok bool)) Case {
	return &recvCase[T]{c: c, fok: f}
}

// OnDefault is the Select case that runs f (if not nil) when no other case
// can proceed at once.
func OnDefault(f func()) Case {
	if f == nil {
		return defaultNil
	}
	return &defaultCase{f: f}
}

// defaultNil is every OnDefault(nil) case: it has no state, and sharing it
// saves plain mode an allocation.
var defaultNil Case = &defaultCase{}

type sendCase[T any] struct {
	c *Chan[T]
	v T
	f func()
	s *chanState[T]
	w *waiter[T]
}

func (x *sendCase[T]) bind(g *sched.G) {
	if x.c != nil {
		x.s = x.c.state(g)
	}
}

func (x *sendCase[T]) queue(sel *selection, idx int) {
	if x.s != nil && x.s.cap == 0 {
		x.w = &waiter[T]{sel: sel, idx: idx, val: x.v}
		x.s.enqueue(&x.s.sendq, x.w)
	}
}

func (x *sendCase[T]) unqueue() {
	if x.w != nil {
		x.s.dequeue(&x.s.sendq, x.w)
	}
}

func (x *sendCase[T]) ready(sel *selection) bool { return x.s != nil && x.s.canSend(sel) }

func (x *sendCase[T]) commit(sel *selection) {
	x.s.send(x.v, sel)
	x.completed()
}

func (x *sendCase[T]) completed() {
	if x.f != nil {
		x.f()
	}
}

func (x *sendCase[T]) try() bool {
	if x.c == nil {
		return false
	}
	select {
	case x.c.ch <- x.v:
		x.completed()
		return true
	default:
		return false
	}
}

func (x *sendCase[T]) reflectCase() reflect.SelectCase {
	rc := reflect.SelectCase{Dir: reflect.SelectSend, Send: reflect.ValueOf(&x.v).Elem()}
	if x.c != nil {
		rc.Chan = reflect.ValueOf(x.c.ch)
	}
	return rc
}

func (x *sendCase[T]) reflected(reflect.Value, bool) { x.completed() }
func (x *sendCase[T]) isDefault() bool               { return false }

type recvCase[T any] struct {
	c   *Chan[T]
	f   func(T)
	fok func(T, bool)
	s   *chanState[T]
	w   *waiter[T]
}

func (x *recvCase[T]) bind(g *sched.G) {
	if x.c != nil {
		x.s = x.c.state(g)
	}
}

func (x *recvCase[T]) queue(sel *selection, idx int) {
	if x.s != nil && x.s.cap == 0 {
		x.w = &waiter[T]{sel: sel, idx: idx}
		x.s.enqueue(&x.s.recvq, x.w)
	}
}

func (x *recvCase[T]) unqueue() {
	if x.w != nil {
		x.s.dequeue(&x.s.recvq, x.w)
	}
}

func (x *recvCase[T]) ready(sel *selection) bool { return x.s != nil && x.s.canRecv(sel) }

func (x *recvCase[T]) commit(sel *selection) { x.deliver(x.s.recv(sel)) }

func (x *recvCase[T]) completed() { x.deliver(x.w.val, x.w.ok) }

func (x *recvCase[T]) deliver(v T, ok bool) {
	if x.f != nil {
		x.f(v)
	}
	if x.fok != nil {
		x.fok(v, ok)
	}
}

func (x *recvCase[T]) try() bool {
	if x.c == nil {
		return false
	}
	select {
	case v, ok := <-x.c.rc:
		x.deliver(v, ok)
		return true
	default:
		return false
	}
}

func (x *recvCase[T]) reflectCase() reflect.SelectCase {
	rc := reflect.SelectCase{Dir: reflect.SelectRecv}
	if x.c != nil {
		rc.Chan = reflect.ValueOf(x.c.rc)
	}
	return rc
}

func (x *recvCase[T]) reflected(v reflect.Value, ok bool) {
	var t T
	if ok {
		reflect.ValueOf(&t).Elem().Set(v)
	}
	x.deliver(t, ok)
}

func (x *recvCase[T]) isDefault() bool { return false }

type defaultCase struct{ f func() }

func (x *defaultCase) bind(*sched.G)         {}
func (x *defaultCase) queue(*selection, int) {}
func (x *defaultCase) unqueue()              {}
func (x *defaultCase) ready(*selection) bool { return false }
func (x *defaultCase) completed()            {}
func (x *defaultCase) try() bool             { return false }
func (x *defaultCase) reflectCase() reflect.SelectCase {
	return reflect.SelectCase{Dir: reflect.SelectRecv}
}
func (x *defaultCase) reflected(reflect.Value, bool) {}
func (x *defaultCase) isDefault() bool               { return true }

func (x *defaultCase) commit(*selection) {
	if x.f != nil {
		x.f()
	}
}
