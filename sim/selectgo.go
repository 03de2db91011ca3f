package sim

import (
	"reflect"
	"runtime"
	"unsafe"

	"github.com/weftdev/weft/internal/gls"
	"github.com/weftdev/weft/record"
	"github.com/weftdev/weft/sched"
)

// Cases on Go channels: a select rewritten by weft test that mixes weft's
// channels with a channel from code weft does not instrument (a library's
// channel, a fake clock's) waits on both. The Go channel's readiness is not
// known to the controller, so such a select polls: it attempts every case
// without blocking, and when none can proceed, it lets the other goroutines
// run (a scheduling point, see poll) and attempts them again. In plain mode
// it is an ordinary select.

// OnRecvGo is a Select case that receives a value from c, a Go channel,
// and passes it to f (if not nil).
func OnRecvGo[T any](c <-chan T, f func(v T)) Case {
	if f == nil {
		return goRecvCase(c, nil)
	}
	return goRecvCase(c, f)
}

// OnRecvOKGo is a Select case like OnRecvGo that also passes whether the
// value came from a send (false: c is closed and drained).
func OnRecvOKGo[T any](c <-chan T, f func(v T, ok bool)) Case {
	if f == nil {
		return goRecvCase(c, nil)
	}
	return goRecvCase(c, f)
}

// OnSendGo is a Select case that sends v on c, a Go channel, then calls f
// (if not nil).
func OnSendGo[T any](c chan<- T, v T, f func()) Case {
	x := Case{dir: caseSend, val: v}
	if f != nil {
		x.fn = f
	}
	if c != nil {
		x.ch = &goChan[T]{sc: c} // a nil channel: a case that never proceeds
	}
	return x
}

func goRecvCase[T any](c <-chan T, fn any) Case {
	x := Case{dir: caseRecv, fn: fn}
	if c != nil {
		x.ch = &goChan[T]{rc: c}
	}
	return x
}

// goChan is the channel of a case on a Go channel.
type goChan[T any] struct {
	rc <-chan T
	sc chan<- T
}

// goCase marks the selectables that are Go channels; goChannel returns
// the channel's identity, its address.
type goCase interface{ goChannel() uintptr }

func (ch *goChan[T]) goChannel() uintptr {
	if ch.rc != nil {
		return *(*uintptr)(unsafe.Pointer(&ch.rc))
	}
	return *(*uintptr)(unsafe.Pointer(&ch.sc))
}

// outside does nothing: a Go channel belongs to no execution.
func (*goChan[T]) outside() {}

func (ch *goChan[T]) try(c Case) bool {
	if c.dir == caseSend {
		select {
		case ch.sc <- sendValue[T](c):
			callFunc(c)
			return true
		default:
			return false
		}
	}
	if len(ch.rc) == 0 {
		// A value handed off by a sender of the execution comes first,
		// from the handoff: in Go's order, an empty channel's blocked
		// sender is the first.
		if g, _ := who(); g != nil && takeGoSend(g, ch.goChannel(), c, nil) {
			return true
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

func (ch *goChan[T]) reflectCase(c Case) reflect.SelectCase {
	return reflectCaseOf(c, ch.sc, ch.rc)
}

func (ch *goChan[T]) reflected(c Case, v reflect.Value, ok bool) { deliverReflected[T](c, v, ok) }

func (*goChan[T]) controlled(*sched.G, Case) controlledCase {
	panic("sim: a case on a Go channel in a controlled select")
}

func (*goChan[T]) recorded(*record.Thread, Case) recordedCase {
	panic("sim: a case on a Go channel in a recorded select")
}

// selectPolling runs, under control or recorded, a select with cases on
// Go channels: each round is a non-blocking select of its cases on weft's
// channels (a scheduling point, where the strategy picks among the ready
// ones), then a non-blocking attempt of its Go channels, in order; when
// nothing proceeds and there is no default case, the goroutine polls.
func selectPolling(cases []Case, def int) int {
	var weft []Case
	var index []int // weft's cases' indices in cases
	var goCases []int
	var goChans []uintptr
	for i := range cases {
		c := cases[i]
		switch {
		case c.dir == caseDefault:
		case c.ch == nil:
		default:
			if gc, ok := c.ch.(goCase); ok {
				goCases, goChans = append(goCases, i), append(goChans, gc.goChannel())
				continue
			}
			weft, index = append(weft, c), append(index, i)
		}
	}
	weft = append(weft, OnDefault(nil))
	var off offer
	defer off.withdraw()
	// The offer of the send cases stands while the goroutine waits for
	// its turn, at every scheduling point of a round, and is withdrawn
	// once it has the turn: a receiver that polls the other end while it
	// waits finds the offer (withdrawn at the top of each round, it was
	// missing from the select of weft's cases, and eapache/channels'
	// ResizableChannel, whose loop mixes weft's channels and Go's, waited
	// for a stall round at almost every value).
	taken := -1
	stop := func() bool {
		taken = off.taken()
		return taken >= 0
	}
	for first := true; ; first = false {
		// The select of weft's cases is the round's scheduling point; a
		// round of Go channels alone has its poll for one, after the first.
		if first || len(index) > 0 {
			if i := selectWeft(weft, stop); taken < 0 && i < len(index) {
				return index[i]
			}
		} else {
			stop()
		}
		if i := taken; i >= 0 {
			if g, _ := who(); g != nil {
				g.Changed(cases[i].ch.(goCase).goChannel())
			}
			callFunc(cases[i])
			return i
		}
		for _, i := range goCases {
			if c := cases[i]; c.ch.try(c) {
				if g, _ := who(); g != nil {
					g.Changed(c.ch.(goCase).goChannel()) // not a poll: a Go channel's value moved
				}
				return i
			}
		}
		if def >= 0 {
			callFunc(cases[def])
			return def
		}
		if len(index) > 0 {
			goChans = nil // it waits for weft's channels too
		}
		off.make(cases, goCases)
		poll(goChans)
	}
}

// selectWeft is the select of a polling select's cases on weft's channels,
// its default case last; under control, stop is called when it has the
// turn, before it looks at its cases (see selectControlled).
func selectWeft(weft []Case, stop func() bool) int {
	if g, _ := who(); g != nil {
		return selectControlled(g, weft, len(weft)-1, stop)
	}
	stop()
	return Select(weft...)
}

// An offer holds out the send cases of a polling select on Go channels
// while the select's goroutine polls: a handoff of them all (see
// gosend.go), whose plain goroutine blocks in a select of the sends, and
// from which a receiver of the execution takes one under the baton. A
// receiver that polls the channel too (a select on the other end of an
// unbuffered channel that weft leaves Go's, as gocron's Jobs and its
// scheduler loop are) then finds a sender waiting, as two goroutines that
// only ever try the channel without blocking never would. The select
// withdraws the offer before it tries its cases again, and takes the send
// case that went meanwhile, if one did; it makes the offer again, in the
// same step, before it lets the others run.
type offer struct {
	h     *handoff
	index []int // the cases of h's sends, by their index in h
	made  bool  // an offer was made: later ones wake no poller
}

// offerer is a Go channel's case that can be offered: deliverer returns
// the function that passes send case c's value to a receive case.
type offerer interface {
	deliverer(c Case) func(rc Case)
}

func (ch *goChan[T]) deliverer(c Case) func(rc Case) {
	v := sendValue[T](c)
	return func(rc Case) { deliverRecv(rc, v, true) }
}

// make offers the send cases of cases, under control.
func (o *offer) make(cases []Case, goCases []int) {
	g, _ := who()
	if g == nil {
		return
	}
	var sends []reflect.SelectCase
	var deliver []func(Case)
	o.index = o.index[:0]
	for _, i := range goCases {
		if c := cases[i]; c.dir == caseSend {
			sends = append(sends, c.ch.reflectCase(c))
			deliver = append(deliver, c.ch.(offerer).deliverer(c))
			o.index = append(o.index, i)
		}
	}
	o.hold(g, sends, deliver)
}

// hold hands sends off, and wakes the pollers of their channels at the
// first offer.
func (o *offer) hold(g *sched.G, sends []reflect.SelectCase, deliver []func(Case)) {
	if len(sends) == 0 {
		return
	}
	o.h = handOffReflected(g, sends, deliver)
	if !o.made {
		o.made = true
		for _, s := range o.h.sends {
			g.Changed(s.ch) // a sender waits now: pollers of its channel look again
		}
	}
}

// taken withdraws the offer, and returns the case taken meanwhile, by a
// receiver of the execution or one outside, or -1.
func (o *offer) taken() int {
	h := o.h
	if h == nil {
		return -1
	}
	o.h = nil
	g, _ := who()
	h.withdraw(g)
	switch {
	case h.taken >= 0:
		return o.index[h.taken]
	case h.sent >= 0:
		return o.index[h.sent]
	}
	return -1
}

// withdraw withdraws an offer the select leaves without looking (its
// goroutine ends: the execution is aborted).
func (o *offer) withdraw() {
	if h := o.h; h != nil && !h.done {
		h.done = true
		close(h.cancel)
	}
}

// poll is the scheduling point of a goroutine that waits by polling Go
// channels: it lets the other goroutines run and, under control, counts as
// a poll of something outside the execution (sched.G.Poll), so that when
// nothing else can progress the controller waits for the channels in real
// time (a goroutine weft does not control may feed them) rather than call
// it a deadlock or a runaway. goChans, if any, are the Go channels the
// goroutine polls, alone: under control it then waits for one of them to
// change, not for any change of the execution (sched.G.PollGo).
func poll(goChans []uintptr) {
	g, t := who()
	if g != nil {
		if len(goChans) > 0 {
			g.PollGo(opYield, goChans)
		} else {
			g.Poll(opYield, true)
		}
		return
	}
	if t != nil {
		t.Op(nil)
	}
	runtime.Gosched()
}

// Operations on Go channels: weft test leaves a channel Go's where it
// reaches code weft does not instrument (fmt, reflect), and rewrites a
// receive from it or a send on it outside a select to these, which wait
// as a select on Go channels does: under control they poll, so a
// controlled goroutine that waits on a Go channel lets the goroutine that
// will send on it run. Outside an execution they are the plain operation.

// RecvGo receives a value from c, a Go channel.
func RecvGo[T any](c <-chan T) T {
	v, _ := RecvOKGo(c)
	return v
}

// RecvOKGo receives a value from c, a Go channel, and reports whether it
// came from a send (false: c is closed and drained).
func RecvOKGo[T any](c <-chan T) (v T, ok bool) {
	if !gls.Active() {
		v, ok = <-c
		return v, ok
	}
	Select(OnRecvOKGo(c, func(x T, o bool) { v, ok = x, o }))
	return v, ok
}

// CloseGo closes c, a Go channel. Under control the close is an event,
// and the goroutines that poll c look again at once (see sched.G.Changed),
// as Go's receivers wake at a close; otherwise it is close(c).
func CloseGo[T any](c chan<- T) {
	g, _ := who()
	if g == nil {
		close(c)
		return
	}
	g.StepReady(opClose, 0)
	close(c)
	g.Changed(*(*uintptr)(unsafe.Pointer(&c)))
}

// SendGo sends v on c, a Go channel. Under control, a send that cannot
// proceed at once is handed to a plain goroutine that blocks in it, and
// SendGo polls for its completion: a receiver that polls too (RecvGo) then
// finds a sender waiting, as two goroutines that only ever poll an
// unbuffered channel never would; a receiver of the execution takes the
// value from the handoff, under the baton (see gosend.go).
func SendGo[T any](c chan<- T, v T) {
	if !gls.Active() {
		c <- v
		return
	}
	if c == nil {
		// Never ready: it waits as on weft's nil channel, forever, not
		// for the world outside (eapache/channels' DeadChannel).
		Select(OnSendGo(c, v, nil))
		return
	}
	if Select(OnSendGo(c, v, nil), OnDefault(nil)) == 0 {
		return
	}
	if g, _ := who(); g != nil {
		h := handOff(g, c, v)
		g.Changed(h.sends[0].ch) // a sender waits now: pollers of c look again
		h.waitSent(g)
		return
	}
	sent := make(chan struct{})
	go func() {
		c <- v
		close(sent)
	}()
	Select(OnRecvGo(sent, nil))
}
