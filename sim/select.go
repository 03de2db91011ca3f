package sim

import (
	"math/rand/v2"
	"reflect"

	"github.com/weftdev/weft/internal/gls"
	"github.com/weftdev/weft/record"
	"github.com/weftdev/weft/sched"
)

// A Case is one case of a Select, made by OnSend, OnRecv, OnRecvOK or
// OnDefault. It is a small value: a receive case costs no allocation.
type Case struct {
	ch  selectable // nil for a default case or a nil channel
	dir caseDir
	val any // the value a send case sends
	fn  any // func(), func(T), func(T, bool), or nil
}

type caseDir uint8

const (
	caseRecv caseDir = iota
	caseSend
	caseDefault
)

// selectable is what a Select needs of a channel: *Chan[T] implements it,
// so that Case, which cannot be generic, holds its channel without
// allocating.
type selectable interface {
	// try performs c if it can proceed at once, runs its function and
	// reports true.
	try(c Case) bool
	reflectCase(c Case) reflect.SelectCase
	reflected(c Case, v reflect.Value, ok bool)
	// outside tells the execution that owns the channel's state, if
	// one runs, that a goroutine outside it uses the channel (see
	// outside.go).
	outside()
	// visiting returns, if the channel's state belongs to an execution,
	// its controller, the execution, the channel's object and the visit
	// of a case on it (see selectvisit.go).
	visiting() (*sched.Controller, uint64, uint32, caseVisit)
	// controlled returns the case's state in g's execution.
	controlled(g *sched.G, c Case) controlledCase
	// recorded returns the case's state in t's run.
	recorded(t *record.Thread, c Case) recordedCase
}

// controlledCase is one case of a Select under control.
type controlledCase interface {
	queue(sel *selection, idx int)
	unqueue()
	ready(sel *selection) bool
	commit(sel *selection)
	completed() // a partner completed this case while the select waited
	// object returns the channel's object, and whether it is buffered:
	// the select watches a buffered channel's changes, and is woken by
	// name on an unbuffered one (see selection).
	object() (uint32, bool)
}

// OnSend is a Select case that sends v on c, then calls f (if not nil).
func OnSend[T any](c *Chan[T], v T, f func()) Case {
	if f == nil {
		return chanCaseOf(c, caseSend, v, nil)
	}
	return chanCaseOf(c, caseSend, v, f)
}

// OnRecv is a Select case that receives a value from c and passes it to f
// (if not nil). From a closed channel it receives the zero value.
func OnRecv[T any](c *Chan[T], f func(v T)) Case {
	if f == nil {
		return chanCaseOf(c, caseRecv, nil, nil)
	}
	return chanCaseOf(c, caseRecv, nil, f)
}

// OnRecvOK is a Select case like OnRecv that also passes whether the value
// came from a send (false: c is closed and drained).
func OnRecvOK[T any](c *Chan[T], f func(v T, ok bool)) Case {
	if f == nil {
		return chanCaseOf(c, caseRecv, nil, nil)
	}
	return chanCaseOf(c, caseRecv, nil, f)
}

// chanCaseOf makes a case on c; fn is nil or a non-nil function, so that a
// case without one holds a nil interface.
func chanCaseOf[T any](c *Chan[T], dir caseDir, val, fn any) Case {
	x := Case{dir: dir, val: val, fn: fn}
	if c != nil {
		x.ch = c // a nil *Chan would make a non-nil interface
	}
	return x
}

// OnDefault is the Select case that runs f (if not nil) when no other case
// can proceed at once.
func OnDefault(f func()) Case {
	x := Case{dir: caseDefault}
	if f != nil {
		x.fn = f
	}
	return x
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
	def, channels, goChans := -1, 0, 0
	for i := range cases {
		switch {
		case cases[i].dir == caseDefault:
			if def >= 0 {
				panic("sim.Select: multiple default cases")
			}
			def = i
		case cases[i].ch != nil:
			channels++
			if _, ok := cases[i].ch.(goCase); ok {
				goChans++
			}
		}
	}
	g, t := who()
	if goChans > 0 && (g != nil || t != nil) {
		return selectPolling(cases, def) // see selectgo.go
	}
	if g != nil {
		return selectControlled(g, cases, def, nil)
	}
	if t != nil {
		return selectRecorded(t, cases, def)
	}
	return selectPlain(cases, def, channels)
}

func selectPlain(cases []Case, def, channels int) int {
	if gls.Active() {
		if channels > 0 && (def < 0 || sendsTo(cases)) {
			if i, ok := selectVisit(cases, def); ok {
				return i
			}
		}
		outsideCases(cases, caseSend) // a send the execution does not see
	}
	// Fast path: try the cases without blocking, starting at a random one,
	// as cheap as a select with a default on each channel.
	if n := len(cases); n > 0 {
		start := 0
		if channels > 1 {
			start = rand.IntN(n)
		}
		for k := range n {
			i := start + k
			if i >= n {
				i -= n
			}
			if c := cases[i]; c.ch != nil && c.ch.try(c) {
				return i
			}
		}
	}
	if def >= 0 {
		callFunc(cases[def])
		return def
	}
	if gls.Active() {
		outsideCases(cases, caseRecv) // a wait for what the execution might send
	}
	rcs := make([]reflect.SelectCase, len(cases))
	for i := range cases {
		if c := cases[i]; c.ch != nil {
			rcs[i] = c.ch.reflectCase(c)
		} else {
			rcs[i] = reflect.SelectCase{Dir: reflect.SelectRecv} // a nil channel: never ready
		}
	}
	i, v, ok := reflect.Select(rcs)
	cases[i].ch.reflected(cases[i], v, ok)
	return i
}

// outsideCases tells the executions that own the channels of the cases
// of direction dir that a goroutine outside them uses the channels, if
// they run: a Select in plain mode while an execution runs in the
// process.
func outsideCases(cases []Case, dir caseDir) {
	for _, c := range cases {
		if c.ch != nil && c.dir == dir {
			c.ch.outside()
		}
	}
}

// callFunc runs the func() of a send or default case.
func callFunc(c Case) {
	if f, _ := c.fn.(func()); f != nil {
		f()
	}
}

// selectReady is the Waiter of a select without default (a
// sched.MultiWaiter): the controller watches its buffered channels, and
// the partner or Close that completes one of its unbuffered cases wakes it
// by name.
type selectReady struct {
	sel   *selection
	cases []controlledCase
}

func (w *selectReady) Objects() []uint32 { return w.sel.objs }

//go:norace
func (w *selectReady) Ready() bool {
	if w.sel.done {
		return true
	}
	for _, c := range w.cases {
		if c != nil && c.ready(w.sel) {
			return true
		}
	}
	return false
}

// selectControlled runs a select under control. Its Step is its arrival,
// as for a send or receive on an unbuffered channel (see chanState): it
// completes a ready case, chosen by the strategy (G.ChooseCase), or runs
// the default case, or else queues a waiter on each of its unbuffered
// channels and parks (G.Park) until a partner that arrives later completes
// one of them, or until a case becomes ready otherwise (a value or room in
// a buffered channel, a closed channel): it then completes one of those.
//
// If stop is not nil, it is called once the select's event lets g go on,
// before the select looks at its cases: when it reports true, the select
// returns -2, having done nothing (a polling select's offer was taken
// while it waited for its turn, see selectPolling).
//
//go:norace
func selectControlled(g *sched.G, cases []Case, def int, stop func() bool) int {
	ctl := make([]controlledCase, len(cases))
	channels := 0
	for i := range cases {
		if c := cases[i]; c.ch != nil {
			ctl[i] = c.ch.controlled(g, c)
			channels++
		}
	}
	if def < 0 && channels == 0 {
		g.Step(opSelect, 0, sched.Never)
		return -1
	}
	sel := &selection{}
	g.StepReady(opSelect, 0)
	if stop != nil && stop() {
		return -2
	}
	ready := readyCases(ctl, sel, nil)
	if len(ready) == 0 {
		if def >= 0 {
			// Nothing was ready: the select polled. A loop of such
			// selects counts as waiting (see sched.G.Polled).
			g.Polled()
			callFunc(cases[def])
			return def
		}
		sel.owner = g
		for i, c := range ctl {
			if c != nil {
				c.queue(sel, i)
				if obj, buffered := c.object(); buffered {
					sel.objs = append(sel.objs, obj)
				}
			}
		}
		g.Park(opSelect, 0, &selectReady{sel: sel, cases: ctl})
		for _, c := range ctl {
			if c != nil {
				c.unqueue()
			}
		}
		if sel.done {
			ctl[sel.idx].completed()
			return sel.idx
		}
		ready = readyCases(ctl, sel, ready)
	}
	i := g.ChooseCase(ready)
	ctl[i].commit(sel)
	return i
}

// readyCases appends to ready the indices of the cases of ctl that can
// proceed now. The strategy reads them (sched.G.Cases), on its own
// goroutine under the race detector: they are written uninstrumented.
//
//go:norace
func readyCases(ctl []controlledCase, sel *selection, ready []int) []int {
	for i, c := range ctl {
		if c != nil && c.ready(sel) {
			ready = append(ready, i)
		}
	}
	return ready
}

// The channel side of Select.

func (ch *Chan[T]) try(c Case) bool {
	if c.dir == caseSend {
		select {
		case ch.ch <- sendValue[T](c):
			callFunc(c)
			return true
		default:
			return false
		}
	}
	select {
	case v, ok := <-ch.rc:
		deliverRecv(c, v, ok)
		return true
	default:
		return false
	}
}

// sendValue returns the value of a send case.
func sendValue[T any](c Case) T {
	v, _ := c.val.(T) // a nil interface value stays nil
	return v
}

// deliverRecv passes a received value to a receive case's function.
func deliverRecv[T any](c Case, v T, ok bool) {
	switch f := c.fn.(type) {
	case func(T):
		f(v)
	case func(T, bool):
		f(v, ok)
	}
}

func (ch *Chan[T]) outside() { outside(&ch.st, opSelect, ch) }

func (ch *Chan[T]) reflectCase(c Case) reflect.SelectCase { return reflectCaseOf(c, ch.ch, ch.rc) }

func (ch *Chan[T]) reflected(c Case, v reflect.Value, ok bool) { deliverReflected[T](c, v, ok) }

// reflectCaseOf is the reflect.SelectCase of case c on a Go channel: send
// and rc are its two directions, as weft's and Go's channels hold them.
func reflectCaseOf[T any](c Case, send chan<- T, rc <-chan T) reflect.SelectCase {
	if c.dir == caseSend {
		v := sendValue[T](c)
		return reflect.SelectCase{Dir: reflect.SelectSend, Chan: reflect.ValueOf(send), Send: reflect.ValueOf(&v).Elem()}
	}
	return reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(rc)}
}

// deliverReflected completes case c after reflect.Select chose it, with
// the value v it received (ok false: the channel was closed).
func deliverReflected[T any](c Case, v reflect.Value, ok bool) {
	if c.dir == caseSend {
		callFunc(c)
		return
	}
	var t T
	if ok {
		reflect.ValueOf(&t).Elem().Set(v)
	}
	deliverRecv(c, t, ok)
}

func (ch *Chan[T]) controlled(g *sched.G, c Case) controlledCase {
	x := &chanCase[T]{c: c, s: ch.state(g), g: g}
	if c.dir == caseSend {
		x.v = sendValue[T](c)
	}
	return x
}

// chanCase is a send or receive case of a Select under control.
type chanCase[T any] struct {
	c Case
	s *chanState[T]
	v T // the value to send
	w *waiter[T]
	g *sched.G
}

//go:norace
func (x *chanCase[T]) queue(sel *selection, idx int) {
	if x.s.cap > 0 {
		return // buffered channels need no partner
	}
	x.w = &waiter[T]{sel: sel, idx: idx, val: x.v}
	if x.c.dir == caseSend {
		x.s.enqueue(&x.s.sendq, x.w)
	} else {
		x.s.enqueue(&x.s.recvq, x.w)
	}
	waitArrive(x.w)
}

//go:norace
func (x *chanCase[T]) unqueue() {
	if x.w == nil {
		return
	}
	if x.c.dir == caseSend {
		x.s.dequeue(&x.s.sendq, x.w)
	} else {
		x.s.dequeue(&x.s.recvq, x.w)
	}
}

//go:norace
func (x *chanCase[T]) ready(sel *selection) bool {
	if x.c.dir == caseSend {
		return x.s.canSend(sel)
	}
	return x.s.canRecv(sel)
}

func (x *chanCase[T]) object() (uint32, bool) { return x.s.id, x.s.cap > 0 }

//go:norace
func (x *chanCase[T]) commit(sel *selection) {
	// The select's event names no channel: say which one changed.
	x.g.Touch(x.s.id)
	if x.c.dir == caseSend {
		x.s.send(x.v, sel)
		callFunc(x.c)
		return
	}
	v, ok := x.s.recv(sel)
	x.g.Observe(digest(&v))
	deliverRecv(x.c, v, ok)
}

//go:norace
func (x *chanCase[T]) completed() {
	waitCompleted(x.w)
	if x.c.dir == caseSend {
		callFunc(x.c)
		return
	}
	x.g.Observe(digest(&x.w.val))
	deliverRecv(x.c, x.w.val, x.w.ok)
}
