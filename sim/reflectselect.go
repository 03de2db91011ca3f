package sim

import (
	"reflect"
	"slices"

	"github.com/weftdev/weft/internal/gls"
)

// ReflectSelect is reflect.Select for code weft test rewrites. The
// channels reflect sees are Go's (a channel handed to reflect stays Go's,
// see RecvGo), and a controlled goroutine blocked in reflect.Select would
// wait outside weft's control, holding the execution's turn. So under
// control it waits as a select on Go channels does: it tries its cases
// without blocking, lets the other goroutines run between tries, and,
// meanwhile, offers its send cases from a plain goroutine, so that a
// receiver that polls the other end finds a sender waiting
// (eapache/channels' Tee and Distribute send through reflect.Select to
// buffers whose loops poll). Outside an execution it is reflect.Select.
func ReflectSelect(cases []reflect.SelectCase) (chosen int, recv reflect.Value, recvOK bool) {
	g, t := who()
	if g == nil && t == nil {
		return reflect.Select(cases)
	}
	def, chans := -1, []uintptr(nil)
	for i, c := range cases {
		switch {
		case c.Dir == reflect.SelectDefault:
			def = i
		case c.Chan.IsValid() && !c.Chan.IsNil():
			chans = append(chans, c.Chan.Pointer())
		}
	}
	tries := cases
	if def < 0 {
		tries = append(slices.Clip(cases), reflect.SelectCase{Dir: reflect.SelectDefault})
	}
	var off reflectOffer
	defer off.withdraw()
	Select(OnDefault(nil)) // the scheduling point of the first try
	for {
		if i := off.taken(); i >= 0 {
			if g != nil {
				g.Changed(cases[i].Chan.Pointer())
			}
			return i, reflect.Value{}, false
		}
		i, v, ok := reflect.Select(tries)
		if i < len(cases) && i != def {
			if g != nil {
				g.Changed(cases[i].Chan.Pointer()) // a Go channel's value moved
			}
			return i, v, ok
		}
		if def >= 0 {
			return def, reflect.Value{}, false
		}
		if g != nil {
			off.make(cases)
		}
		poll(chans)
	}
}

// A reflectOffer holds out the send cases of a ReflectSelect while its
// goroutine polls: a plain goroutine blocks in a reflect.Select of them
// and of the offer's withdrawal, so that at most one is taken.
type reflectOffer struct {
	cancel chan struct{} // closed to withdraw the offer
	sent   chan int      // the case taken, or -1, once withdrawn
}

// make offers the send cases of cases, if any.
func (o *reflectOffer) make(cases []reflect.SelectCase) {
	var offered []reflect.SelectCase
	var index []int
	for i, c := range cases {
		if c.Dir == reflect.SelectSend && c.Chan.IsValid() && !c.Chan.IsNil() {
			offered, index = append(offered, c), append(index, i)
		}
	}
	if len(offered) == 0 {
		return
	}
	o.cancel, o.sent = make(chan struct{}), make(chan int, 1)
	offered = append(offered, reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(o.cancel)})
	started := make(chan struct{})
	go func(sent chan<- int) {
		close(started)
		i, _, _ := reflect.Select(offered)
		if i == len(index) {
			sent <- -1
			return
		}
		sent <- index[i]
	}(o.sent)
	<-started // so that a receiver run next finds it there
}

// taken withdraws the offer, and returns the case taken meanwhile, or -1.
func (o *reflectOffer) taken() int {
	if o.cancel == nil {
		return -1
	}
	close(o.cancel)
	i := <-o.sent
	o.cancel = nil
	return i
}

// withdraw withdraws an offer the select leaves without looking (its
// goroutine ends: the execution is aborted).
func (o *reflectOffer) withdraw() {
	if o.cancel != nil {
		close(o.cancel)
	}
}

// The channel operations of reflect.Value, for code weft test rewrites:
// v.Recv() becomes sim.ReflectRecv(v), and so on. The channels reflect
// sees are Go's, and a controlled goroutine blocked in v.Recv or v.Send
// would wait outside weft's control, holding the execution's turn
// (eapache/channels' Wrap receives with v.Recv, Unwrap sends with v.Send
// and closes with v.Close: TestWrap and TestUnwrap were reported
// blocked). Under control they wait as ReflectSelect does; outside an
// execution, or on a value that is no channel of the right direction (so
// that reflect panics as it would), they are reflect's.

// ReflectRecv is v.Recv().
func ReflectRecv(v reflect.Value) (x reflect.Value, ok bool) {
	if !gls.Active() || !isChanDir(v, reflect.RecvDir) {
		return v.Recv()
	}
	_, x, ok = ReflectSelect([]reflect.SelectCase{{Dir: reflect.SelectRecv, Chan: v}})
	return x, ok
}

// ReflectSend is v.Send(x).
func ReflectSend(v, x reflect.Value) {
	if !gls.Active() || !isChanDir(v, reflect.SendDir) {
		v.Send(x)
		return
	}
	ReflectSelect([]reflect.SelectCase{{Dir: reflect.SelectSend, Chan: v, Send: x}})
}

// ReflectTryRecv is v.TryRecv(). Under control the try is a scheduling
// point, as a select with a default case is, so that a loop of tries lets
// the other goroutines run.
func ReflectTryRecv(v reflect.Value) (x reflect.Value, ok bool) {
	g, t := who()
	if g == nil && t == nil || !isChanDir(v, reflect.RecvDir) {
		return v.TryRecv()
	}
	Select(OnDefault(nil))
	x, ok = v.TryRecv()
	if x.IsValid() && g != nil {
		g.Changed(v.Pointer()) // a Go channel's value moved
	}
	return x, ok
}

// ReflectTrySend is v.TrySend(x), a scheduling point under control as
// ReflectTryRecv is.
func ReflectTrySend(v, x reflect.Value) bool {
	g, t := who()
	if g == nil && t == nil || !isChanDir(v, reflect.SendDir) {
		return v.TrySend(x)
	}
	Select(OnDefault(nil))
	ok := v.TrySend(x)
	if ok && g != nil {
		g.Changed(v.Pointer())
	}
	return ok
}

// ReflectClose is v.Close(). Under control the close is an event, and the
// goroutines that poll the channel look again at once, as CloseGo's.
func ReflectClose(v reflect.Value) {
	g, _ := who()
	if g == nil || !isChanDir(v, reflect.SendDir) {
		v.Close()
		return
	}
	g.Step(opClose, 0, nil)
	v.Close()
	g.Changed(v.Pointer())
}

// isChanDir reports whether v is a channel that can be used in direction
// dir, whose operations reflect would not refuse.
func isChanDir(v reflect.Value, dir reflect.ChanDir) bool {
	return v.Kind() == reflect.Chan && v.Type().ChanDir()&dir != 0 && v.CanInterface()
}
