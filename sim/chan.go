package sim

import (
	"iter"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/weftdev/weft/internal/gls"
	"github.com/weftdev/weft/internal/race"
	"github.com/weftdev/weft/record"
	"github.com/weftdev/weft/sched"
)

// A Chan is a channel of T values, like a Go chan T, made with NewChan.
// Semantics are Go's: a send on an unbuffered channel waits for a receiver,
// sending on a closed channel panics, closing twice panics, receiving from a
// closed channel drains the buffer and then yields zero values. Operations on
// a nil *Chan block forever, as on a nil Go channel; Close of one panics.
type Chan[T any] struct {
	ch  chan T   // plain mode: sends (nil for a timer's channel)
	rc  <-chan T // plain mode: receives
	cap int
	st  *chanState[T]
}

// NewChan returns a channel with room for capacity buffered values; 0 makes
// an unbuffered channel.
func NewChan[T any](capacity int) *Chan[T] {
	if capacity < 0 {
		panic("sim.NewChan: negative capacity")
	}
	ch := make(chan T, capacity)
	return &Chan[T]{ch: ch, rc: ch, cap: capacity}
}

// chanState is a channel under control. A buffered channel holds its values
// in buf; goroutines wait for room or for values by their Waiters, and the
// Step of an operation on it is its completion. An unbuffered channel needs
// both sides present, and the Step of an operation on it is its arrival:
// a goroutine that arrives at a send or a receive completes the first
// waiter of the other side, if there is one, as Go's runtime does, and
// otherwise queues a waiter and parks (G.Park) until the partner that
// arrives later completes it. Arrivals are thus scheduling points, ordered
// by the strategy (a replay's log orders them, see sim/chanrec.go), and the
// pairing follows from their order: first come, first paired.
type chanState[T any] struct {
	object
	cap    int
	buf    []T
	closed bool
	recvq  []*waiter[T]
	sendq  []*waiter[T]

	// For the race detector (see race.go): the slots of a buffered
	// channel and its sends and receives so far; what its Close released;
	// for a timer's channel, what the timer's setting released.
	slots          []*race.Slot
	sent, received uint64
	closeClock     byte
	timerClock     *byte

	mu  sync.Mutex // recording: the monitor
	gen uint64     // recording: a timer's generation (see recDeliver)
	// recording: the free list of waiters (see recOp), and its part taken
	// under mu.
	free  atomic.Pointer[recOp[T]]
	spare *recOp[T]
}

// A selection is one blocking channel operation or select: the waiters of
// its cases share it, and the first partner to complete one case completes
// the selection.
type selection struct {
	done bool
	idx  int // the case completed by a partner

	// Recording (see chanrec.go): the goroutine, closed by the partner
	// that claims the selection.
	claim  atomic.Bool
	t      *record.Thread
	wake   chan struct{}
	closed bool // a send woken by the channel's close
	// arrived: the operation's access was reported at its arrival (a send
	// or receive that waits on an unbuffered channel), so the partner that
	// completes it does not report it on its behalf.
	arrived bool

	// Under control, the goroutine parked on the selection, woken by name
	// (sched.G.Recheck) when a partner completes it or its channel
	// closes; and, for a select, the objects of its buffered channels,
	// whose changes the controller watches.
	owner *sched.G
	objs  []uint32
}

// finish completes the selection with its case idx.
//
//go:norace
func (sel *selection) finish(idx int) {
	sel.done, sel.idx = true, idx
	if sel.owner != nil {
		sel.owner.Recheck()
	}
}

// wakeAll wakes the goroutines parked on the waiters of q: the channel
// closed.
func wakeAll[T any](q []*waiter[T]) {
	for _, w := range q {
		if w.sel.owner != nil {
			w.sel.owner.Recheck()
		}
	}
}

// A waiter is one case of a selection queued on an unbuffered channel.
type waiter[T any] struct {
	sel *selection
	idx int
	val T // a send's value; a receive's result
	ok  bool
}

//go:norace
func (s *chanState[T]) enqueue(q *[]*waiter[T], w *waiter[T]) { *q = append(*q, w) }

// dequeue removes w from q, element by element (see sched's without).
//
//go:norace
func (s *chanState[T]) dequeue(q *[]*waiter[T], w *waiter[T]) {
	ws := *q
	if len(ws) > 0 && ws[0] == w {
		ws[0] = nil
		*q = ws[1:] // the usual case, first come, first served: no copy
		return
	}
	for i, x := range ws {
		if x == w {
			for ; i+1 < len(ws); i++ {
				ws[i] = ws[i+1]
			}
			ws[i] = nil
			*q = ws[:i]
			return
		}
	}
}

// partner returns the first waiter of q that can still be completed and does
// not belong to sel (a select never pairs with itself).
func partner[T any](q []*waiter[T], sel *selection) *waiter[T] {
	for _, w := range q {
		if !w.sel.done && w.sel != sel {
			return w
		}
	}
	return nil
}

// canSend reports whether a send of selection sel can proceed now: to panic
// on a closed channel, into free buffer room, or to a waiting receiver.
func (s *chanState[T]) canSend(sel *selection) bool {
	if s.closed {
		return true
	}
	if s.cap > 0 {
		return len(s.buf) < s.cap
	}
	return partner(s.recvq, sel) != nil
}

// canRecv reports whether a receive of selection sel can proceed now.
func (s *chanState[T]) canRecv(sel *selection) bool {
	if s.closed || len(s.buf) > 0 {
		return true
	}
	return s.cap == 0 && partner(s.sendq, sel) != nil
}

// send performs a send that canSend allowed.
//
//go:norace
func (s *chanState[T]) send(v T, sel *selection) {
	if s.closed {
		panic("send on closed channel")
	}
	if s.cap > 0 {
		s.slotOp(&s.sent)
		s.buf = append(s.buf, v)
		return
	}
	r := partner(s.recvq, sel)
	waitPair(r)
	r.val, r.ok = v, true
	r.sel.finish(r.idx)
}

// recv performs a receive that canRecv allowed.
//
//go:norace
func (s *chanState[T]) recv(sel *selection) (T, bool) {
	if len(s.buf) > 0 {
		if s.timerClock != nil {
			race.Acquire(unsafe.Pointer(s.timerClock))
		} else {
			s.slotOp(&s.received)
		}
		v := s.buf[0]
		var zero T
		s.buf[0] = zero
		s.buf = s.buf[1:]
		return v, true
	}
	if s.closed {
		race.Acquire(unsafe.Pointer(&s.closeClock))
		var zero T
		return zero, false
	}
	w := partner(s.sendq, sel)
	waitPair(w)
	w.sel.finish(w.idx)
	return w.val, true
}

// woken is the end of a wait on an unbuffered channel: a partner completed
// w, or the channel was closed. It reports whether a partner did.
//
//go:norace
func (s *chanState[T]) woken(w *waiter[T]) bool {
	if w.sel.done {
		waitCompleted(w)
		return true
	}
	race.Acquire(unsafe.Pointer(&s.closeClock))
	return false
}

// waiterDone is the Waiter of a send or receive parked on an unbuffered
// channel: a partner completed it, or the channel was closed.
type waiterDone[T any] struct {
	s *chanState[T]
	w *waiter[T]
}

//go:norace
func (x *waiterDone[T]) Ready() bool { return x.w.sel.done || x.s.closed }

// Objects names none: the partner that completes the waiter, or Close,
// wakes its goroutine by name (see sched.MultiWaiter).
func (x *waiterDone[T]) Objects() []uint32 { return nil }

// bufferWait is the Waiter of operations on buffered channels, which need no
// partner.
type sendRoom[T any] chanState[T]

//go:norace
func (x *sendRoom[T]) Ready() bool { return (*chanState[T])(x).canSend(nil) }

// Shared makes the senders waiting for room one group (see
// sched.SharedWaiter).
func (x *sendRoom[T]) Shared() {}

type recvValue[T any] chanState[T]

//go:norace
func (x *recvValue[T]) Ready() bool { return (*chanState[T])(x).canRecv(nil) }

// Shared makes the receivers waiting for a value one group (see
// sched.SharedWaiter).
func (x *recvValue[T]) Shared() {}

//go:norace
func (c *Chan[T]) state(g *sched.G) *chanState[T] {
	s, fresh := newState(&c.st, g)
	s.cap = c.cap
	if fresh {
		c.fromPlain(s)
	}
	return s
}

// fromPlain starts the controlled state of c in an execution from what
// plain mode left in it: a channel closed outside executions (at package
// init, as context's closedchan is) is closed in every one. The buffered
// values of an open plain channel cannot be read without taking them, so
// an execution starts with them left out.
//
//go:norace
func (c *Chan[T]) fromPlain(s *chanState[T]) {
	if c.ch == nil || len(c.ch) > 0 {
		return // a timer's channel, or one with values
	}
	select {
	case v, ok := <-c.ch:
		if !ok {
			s.closed = true
			return
		}
		// A plain goroutine was sending on the unbuffered channel: its
		// value is sent again, by a goroutine of its own, for the plain
		// receiver it was meant for.
		go func() { c.ch <- v }()
	default:
	}
}

// Send sends v on c, waiting for room or for a receiver.
func (c *Chan[T]) Send(v T) {
	g, t := who()
	if g != nil {
		c.sendControlled(g, v)
		return
	}
	if t != nil {
		c.recSend(t, v)
		return
	}
	if c == nil {
		blockForever()
	}
	if c.ch == nil {
		panic("sim: send on a timer's channel")
	}
	if gls.Active() {
		if c.visitSend(v) {
			return
		}
		outside(&c.st, opSend, c)
	}
	c.ch <- v
}

// Recv receives a value from c, waiting for one. From a closed, drained
// channel it returns the zero value.
func (c *Chan[T]) Recv() T {
	v, _ := c.RecvOK()
	return v
}

// RecvOK receives from c like Recv; ok is false when c is closed and
// drained.
func (c *Chan[T]) RecvOK() (v T, ok bool) {
	g, t := who()
	if g != nil {
		return c.recvControlled(g)
	}
	if t != nil {
		return c.recRecv(t)
	}
	if c == nil {
		blockForever()
	}
	if gls.Active() {
		// What the plain channel gives at once is no use of the
		// execution's side: a value sent in plain mode, or its close,
		// which the execution sees too (see fromPlain). Only a receive
		// that would wait is, for what the execution might send.
		select {
		case v, ok = <-c.rc:
			return v, ok
		default:
			if v, ok, done := c.visitRecv(); done {
				return v, ok
			}
			outside(&c.st, opRecv, c)
		}
	}
	v, ok = <-c.rc
	return v, ok
}

// Close closes c. Closing a closed or nil channel panics.
func (c *Chan[T]) Close() {
	g, t := who()
	if g != nil {
		c.closeControlled(g)
		return
	}
	if t != nil {
		c.recClose(t)
		return
	}
	if c == nil {
		panic("close of nil channel")
	}
	if c.ch == nil {
		panic("sim: close of a timer's channel")
	}
	if gls.Active() {
		if c.visitClose() {
			return
		}
		outside(&c.st, opClose, c)
	}
	close(c.ch)
}

// visitSend is Send from a goroutine outside the execution that owns c's
// state (see visit): the send happens in the execution, into its buffer
// or to its waiting receiver. It reports whether it did.
//
//go:norace
func (c *Chan[T]) visitSend(v T) bool {
	closed := false
	done := visit(&c.st, opSend, c, func(s *chanState[T], g *sched.G) bool {
		if !s.canSend(nil) {
			return false
		}
		if s.closed {
			closed = true
			return true
		}
		s.send(v, nil)
		g.Touch(s.id)
		return true
	})
	if closed {
		panic("send on closed channel")
	}
	return done
}

// visitRecv is a receive that would wait, from a goroutine outside the
// execution that owns c's state (see visit): it receives what the
// execution sends, or its close. done reports whether it did.
//
//go:norace
func (c *Chan[T]) visitRecv() (v T, ok, done bool) {
	if c.ch == nil {
		return v, false, false // a timer's channel: its timer is the execution's
	}
	done = visit(&c.st, opRecv, c, func(s *chanState[T], g *sched.G) bool {
		if !s.canRecv(nil) {
			return false
		}
		v, ok = s.recv(nil)
		g.Touch(s.id)
		return true
	})
	return v, ok, done
}

// visitClose is Close from a goroutine outside the execution that owns
// c's state (see visit): the execution's goroutines see the channel
// closed, and so does plain mode. It reports whether it closed it.
//
//go:norace
func (c *Chan[T]) visitClose() bool {
	twice := false
	done := visit(&c.st, opClose, c, func(s *chanState[T], g *sched.G) bool {
		if s.closed {
			twice = true
			return true
		}
		s.close()
		g.Touch(s.id)
		return true
	})
	if twice {
		panic("close of closed channel")
	}
	if done {
		c.closePlain()
	}
	return done
}

// Len returns the number of values buffered in c.
func (c *Chan[T]) Len() int {
	if c == nil {
		return 0
	}
	g, t := who()
	if g != nil {
		s := c.state(g)
		g.StepReady(opLen, s.id)
		g.Observe(uint64(len(s.buf)))
		return len(s.buf)
	}
	if t != nil {
		return c.recLen(t)
	}
	if gls.Active() {
		outside(&c.st, opLen, c)
	}
	return len(c.rc)
}

// Cap returns c's buffer capacity.
func (c *Chan[T]) Cap() int {
	if c == nil {
		return 0
	}
	return c.cap
}

// All returns an iterator over the values received from c until it is
// closed and drained, like a range loop over a Go channel:
//
//	for v := range ch.All() { ... }
func (c *Chan[T]) All() iter.Seq[T] {
	return func(yield func(T) bool) {
		for {
			v, ok := c.RecvOK()
			if !ok || !yield(v) {
				return
			}
		}
	}
}

// sendControlled is Send under control.
//
//go:norace
func (c *Chan[T]) sendControlled(g *sched.G, v T) {
	if c == nil {
		g.Step(opSend, 0, sched.Never)
		return
	}
	s := c.state(g)
	if s.cap > 0 {
		g.Step(opSend, s.id, (*sendRoom[T])(s))
		s.send(v, nil)
		return
	}
	// The arrival (see chanState).
	g.StepReady(opSend, s.id)
	if s.canSend(nil) {
		s.send(v, nil) // to the first waiting receiver, or a panic
		return
	}
	w := &waiter[T]{sel: &selection{owner: g}, val: v}
	s.enqueue(&s.sendq, w)
	waitArrive(w)
	g.Park(opSend, s.id, &waiterDone[T]{s, w})
	s.dequeue(&s.sendq, w)
	if !s.woken(w) {
		panic("send on closed channel")
	}
}

// recvControlled is RecvOK under control.
//
//go:norace
func (c *Chan[T]) recvControlled(g *sched.G) (v T, ok bool) {
	if c == nil {
		g.Step(opRecv, 0, sched.Never)
		return v, false
	}
	s := c.state(g)
	if s.cap > 0 {
		g.Step(opRecv, s.id, (*recvValue[T])(s))
		v, ok = s.recv(nil)
	} else {
		// The arrival (see chanState).
		g.StepReady(opRecv, s.id)
		if s.canRecv(nil) {
			v, ok = s.recv(nil) // from the first waiting sender, or closed
		} else {
			w := &waiter[T]{sel: &selection{owner: g}}
			s.enqueue(&s.recvq, w)
			waitArrive(w)
			g.Park(opRecv, s.id, &waiterDone[T]{s, w})
			s.dequeue(&s.recvq, w)
			s.woken(w)
			v, ok = w.val, w.ok // the zero value if closed
		}
	}
	g.Observe(digest(&v))
	return v, ok
}

// closeControlled is Close under control. The close happens before every
// receive that returns because the channel is closed.
//
//go:norace
func (c *Chan[T]) closeControlled(g *sched.G) {
	if c == nil {
		g.StepReady(opClose, 0)
		panic("close of nil channel")
	}
	s := c.state(g)
	g.StepReady(opClose, s.id)
	if s.closed {
		panic("close of closed channel")
	}
	s.close()
	c.closePlain()
}

// close closes the channel's controlled state, which is open: its waiting
// receivers and senders wake, and the close happens before what they see.
//
//go:norace
func (s *chanState[T]) close() {
	race.Release(unsafe.Pointer(&s.closeClock))
	s.closed = true
	wakeAll(s.recvq)
	wakeAll(s.sendq)
}

// closePlain closes the plain channel too, once an execution closed c: a
// channel that outlives the execution through a package variable is closed
// for the executions after it and for plain mode, as a package variable's
// atomic keeps what the execution stored (ants' default pool: Reboot waits
// for the allDone channel that the workers of an earlier test's execution
// closed, while the pool's state, an atomic, says it was released). A
// channel made in the execution is made anew by every replay of it.
func (c *Chan[T]) closePlain() {
	if c.ch == nil {
		return // a timer's channel
	}
	defer func() { _ = recover() }() // closed in plain mode meanwhile: the outside failure tells
	close(c.ch)
}

// blockForever blocks the calling goroutine forever, as an operation on a
// nil channel does.
func blockForever() {
	var ch chan struct{}
	<-ch
}
