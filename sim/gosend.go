package sim

import (
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

// A goSend is a send of a controlled goroutine on a Go channel, handed to
// a plain goroutine and not taken yet.
type goSend struct {
	ch      uintptr       // the channel's address
	deliver func(c Case)  // passes the value to a receive case
	cancel  chan struct{} // closed to withdraw the plain goroutine's send
	// finished is closed when the plain goroutine ends, having sent (sent)
	// or been withdrawn: the sender and the receiver that withdrew it
	// receive from it, which orders the plain goroutine's use of the
	// channel before theirs for the race detector (the sender's close of
	// the channel, next).
	finished chan struct{}
	sent     bool // the plain goroutine sent, to a receiver weft does not control
	done     bool // taken, by a receiver of the execution or outside
}

// goSends returns the pending handoffs of g's execution.
//
//go:norace
func goSends(g *sched.G) *[]*goSend {
	return &g.Controller().Attachment(newAddrTable).(*addrTable).goSends
}

// handOff hands g's send of v on c to a plain goroutine, and registers it
// for the receivers of the execution.
//
//go:norace
func handOff[T any](g *sched.G, c chan<- T, v T) *goSend {
	s := &goSend{
		ch:       *(*uintptr)(unsafe.Pointer(&c)),
		deliver:  func(rc Case) { deliverRecv(rc, v, true) },
		cancel:   make(chan struct{}),
		finished: make(chan struct{}),
	}
	go func() {
		select {
		case c <- v:
			s.sent = true
		case <-s.cancel:
		}
		close(s.finished)
	}()
	l := goSends(g)
	*l = append(*l, s)
	return s
}

// waitSent polls until s's value is taken.
//
//go:norace
func (s *goSend) waitSent(g *sched.G) {
	defer func() {
		if !s.done { // the execution ends: leave no plain goroutine behind
			close(s.cancel)
		}
	}()
	chans := []uintptr{s.ch}
	for {
		poll(chans)
		if s.done { // a receiver of the execution took it
			<-s.finished
			return
		}
		select {
		case <-s.finished: // a receiver weft does not control took it
			s.done = true
			dropGoSend(g, s)
			return
		default:
		}
	}
}

// takeGoSend gives receive case rc the value of the oldest send of g's
// execution handed off on channel ch, if there is one, and reports whether
// it did. A handoff whose plain goroutine sent meanwhile (to a receiver
// weft does not control) is done, and the next is tried.
//
//go:norace
func takeGoSend(g *sched.G, ch uintptr, rc Case) bool {
	l := goSends(g)
	for {
		var s *goSend
		for _, x := range *l {
			if x.ch == ch && !x.done {
				s = x
				break
			}
		}
		if s == nil {
			return false
		}
		close(s.cancel)
		<-s.finished
		s.done = true
		dropGoSend(g, s)
		if !s.sent { // withdrawn: the value is the receiver's
			s.deliver(rc)
			return true
		}
	}
}

// dropGoSend removes s from the pending handoffs, with a loop: the race
// detector checks slices' functions even in a //go:norace function.
//
//go:norace
func dropGoSend(g *sched.G, s *goSend) {
	l := goSends(g)
	n := 0
	for _, x := range *l {
		if x != s {
			(*l)[n] = x
			n++
		}
	}
	for i := n; i < len(*l); i++ {
		(*l)[i] = nil
	}
	*l = (*l)[:n]
}
