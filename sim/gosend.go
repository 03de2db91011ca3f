package sim

import (
	"reflect"
	"unsafe"

	"github.com/weftdev/weft/sched"
)

// Sends on Go channels handed to plain goroutines. Under control, SendGo
// on a Go channel whose send cannot proceed at once hands the send to a
// plain goroutine, which blocks in it, so that a receiver weft does not
// control can take the value; a receiver of the execution that polls the
// channel (RecvGo, or a select on it) takes the value from the handoff
// instead, under the baton: it withdraws the plain goroutine's send, and
// the sender learns at once that its value went. Left to the plain
// goroutine, the value moved in real time, unseen by the controller:
// the receiver found it only if the plain goroutine had reached its send
// when it looked, and the sender only once the plain goroutine had told
// it, each poller waiting for a stall round of real time in between
// (Workiva/go-datastructures' dtrie iterator, whose channel weft leaves
// Go's, sent 10,000 entries so, and TestIterate ran for minutes).
//
// A polling select (and sim.ReflectSelect) offers its send cases on Go
// channels so too, all at once: one plain goroutine blocks in a select of
// them, and a receiver of the execution takes one from the handoff, which
// withdraws the others, as the select can complete one case only. Offered
// one at a time, in turn, by a plain goroutine that a poller of the other
// end found only in real time, the sends of eapache/channels' buffer loops
// (a select between a receive from their input and sends on their output
// and length channels, all Go's) waited for stall rounds, and their tests
// ran for minutes, then failed as blocked.

// A goSend is one send of a handoff: a value for a Go channel.
type goSend struct {
	ch      uintptr      // the channel's address
	deliver func(c Case) // passes the value to a receive case
	value   func() reflect.Value
	h       *handoff
	i       int // its index among h's sends
}

// A handoff is a controlled goroutine's sends on Go channels, of which at
// most one proceeds, handed to a plain goroutine and not taken yet.
type handoff struct {
	owner  *sched.G
	sends  []*goSend
	cancel chan struct{} // closed to withdraw the plain goroutine's sends
	// finished is closed when the plain goroutine ends, having sent (sent)
	// or been withdrawn: the sender and the receiver that withdrew it
	// receive from it, which orders the plain goroutine's use of the
	// channel before theirs for the race detector (the sender's close of
	// the channel, next).
	finished chan struct{}
	sent     int  // the send the plain goroutine made, to a receiver weft does not control, or -1
	taken    int  // the send a receiver of the execution took, or -1
	done     bool // withdrawn, taken or sent
}

// goSends returns the pending handoffs of g's execution.
//
//go:norace
func goSends(g *sched.G) *[]*goSend {
	return &g.Controller().Attachment(newAddrTable).(*addrTable).goSends
}

// newHandoff returns a handoff of g with no sends yet.
func newHandoff(g *sched.G) *handoff {
	return &handoff{owner: g, cancel: make(chan struct{}), finished: make(chan struct{}), sent: -1, taken: -1}
}

// add adds a send of v on c to h.
func addSend[T any](h *handoff, c chan<- T, v T) {
	h.sends = append(h.sends, &goSend{
		ch:      *(*uintptr)(unsafe.Pointer(&c)),
		deliver: func(rc Case) { deliverRecv(rc, v, true) },
		value:   func() reflect.Value { return reflect.ValueOf(&v).Elem() },
		h:       h,
		i:       len(h.sends),
	})
}

// register registers h's sends for the receivers of g's execution.
//
//go:norace
func (h *handoff) register(g *sched.G) {
	l := goSends(g)
	for _, s := range h.sends { // a loop: append's copy of a slice is checked
		*l = append(*l, s)
	}
}

// handOff hands g's send of v on c to a plain goroutine, and registers it
// for the receivers of the execution.
//
//go:norace
func handOff[T any](g *sched.G, c chan<- T, v T) *handoff {
	h := newHandoff(g)
	addSend(h, c, v)
	go func() {
		select {
		case c <- v:
			h.sent = 0
		case <-h.cancel:
		}
		close(h.finished)
	}()
	h.register(g)
	return h
}

// handOffReflected hands g's sends cases to a plain goroutine, which makes
// one of them, and registers them for the receivers of the execution; the
// send cases' values are the values values returns, in order. A receiver
// of the execution delivers one to its case with deliver.
//
//go:norace
func handOffReflected(g *sched.G, cases []reflect.SelectCase, deliver []func(Case)) *handoff {
	h := newHandoff(g)
	for i, c := range cases {
		x := c.Send
		h.sends = append(h.sends, &goSend{ch: c.Chan.Pointer(), deliver: deliver[i], value: func() reflect.Value { return x }, h: h, i: i})
	}
	all := append(cases[:len(cases):len(cases)], reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(h.cancel)})
	go func() {
		if i, _, _ := reflect.Select(all); i < len(cases) {
			h.sent = i
		}
		close(h.finished)
	}()
	h.register(g)
	return h
}

// withdraw withdraws h's plain goroutine and removes h's sends from the
// pending handoffs, if h is not done, and waits for the goroutine to end:
// which orders its use of the channels before the caller's, for the race
// detector (a close of the channel, next).
//
//go:norace
func (h *handoff) withdraw(g *sched.G) {
	if !h.done {
		h.done = true
		close(h.cancel)
		dropHandoff(g, h)
	}
	<-h.finished
}

// finish records that h's plain goroutine sent, if it did, and reports
// whether it did.
//
//go:norace
func (h *handoff) finish(g *sched.G) bool {
	if h.done {
		return h.sent >= 0
	}
	select {
	case <-h.finished:
		h.done = true
		dropHandoff(g, h)
		return true
	default:
		return false
	}
}

// waitSent polls until h's one value is taken.
//
//go:norace
func (h *handoff) waitSent(g *sched.G) {
	defer func() {
		if !h.done { // the execution ends: leave no plain goroutine behind
			h.done = true
			close(h.cancel)
		}
	}()
	chans := []uintptr{h.sends[0].ch}
	for {
		poll(chans)
		if h.done { // a receiver of the execution took it
			<-h.finished
			return
		}
		if h.finish(g) { // a receiver weft does not control took it
			return
		}
	}
}

// takeGoSend gives receive case rc the value of the oldest send of g's
// execution handed off on channel ch by another goroutine, if there is
// one, and reports whether it did; deliver, if not nil, delivers it
// instead of the send's own deliver. A handoff whose plain goroutine sent
// meanwhile (to a receiver weft does not control) is done, and the next
// is tried.
//
//go:norace
func takeGoSend(g *sched.G, ch uintptr, rc Case, deliver func(reflect.Value)) bool {
	l := goSends(g)
	for {
		var s *goSend
		for _, x := range *l {
			if x.ch == ch && !x.h.done && x.h.owner != g {
				s = x
				break
			}
		}
		if s == nil {
			return false
		}
		s.h.withdraw(g)
		if s.h.sent < 0 { // withdrawn: the value is the receiver's
			s.h.taken = s.i
			if deliver != nil {
				deliver(s.value())
			} else {
				s.deliver(rc)
			}
			return true
		}
	}
}

// dropHandoff removes h's sends from the pending handoffs, with a loop: the
// race detector checks slices' functions even in a //go:norace function.
//
//go:norace
func dropHandoff(g *sched.G, h *handoff) {
	l := goSends(g)
	n := 0
	for _, x := range *l {
		if x.h != h {
			(*l)[n] = x
			n++
		}
	}
	for i := n; i < len(*l); i++ {
		(*l)[i] = nil
	}
	*l = (*l)[:n]
}
