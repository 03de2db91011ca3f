package sim

import (
	"reflect"
	"slices"

	"github.com/weftdev/weft/internal/gls"
	"github.com/weftdev/weft/sched"
)

// ReflectSelect is reflect.Select for code weft test rewrites. The
// channels reflect sees are Go's (a channel handed to reflect stays Go's,
// see RecvGo), and a controlled goroutine blocked in reflect.Select would
// wait outside weft's control, holding the execution's turn. So under
// control it waits as a select on Go channels does: it tries its cases
// without blocking, lets the other goroutines run between tries, and,
// meanwhile, offers its send cases from a plain goroutine (a handoff, see
// gosend.go), so that a receiver that polls the other end finds a sender
// waiting (eapache/channels' Tee and Distribute send through
// reflect.Select to buffers whose loops poll); its receive cases take the
// values the execution's senders handed off. Outside an execution it is
// reflect.Select.
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
	if len(chans) == 0 && def < 0 {
		Select() // nil channels alone: it waits forever, as select {}
	}
	tries := cases
	if def < 0 {
		tries = append(slices.Clip(cases), reflect.SelectCase{Dir: reflect.SelectDefault})
	}
	var off offer
	defer off.withdraw()
	Select(OnDefault(nil)) // the scheduling point of the first try
	for {
		if i := off.taken(); i >= 0 {
			g.Changed(cases[i].Chan.Pointer())
			return i, reflect.Value{}, false
		}
		if g != nil {
			if i, v, ok := takeReflected(g, cases); ok {
				g.Changed(cases[i].Chan.Pointer())
				return i, v, true
			}
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
			offerReflected(g, &off, cases)
		}
		poll(chans)
	}
}

// takeReflected takes, for the first receive case of cases on an empty
// channel that has one, the value a sender of g's execution handed off,
// and returns the case and the value, of the channel's element type.
func takeReflected(g *sched.G, cases []reflect.SelectCase) (int, reflect.Value, bool) {
	for i, c := range cases {
		if c.Dir != reflect.SelectRecv || !c.Chan.IsValid() || c.Chan.IsNil() || c.Chan.Len() > 0 {
			continue
		}
		var v reflect.Value
		if takeGoSend(g, c.Chan.Pointer(), Case{}, func(x reflect.Value) { v = x }) {
			e := reflect.New(c.Chan.Type().Elem()).Elem()
			e.Set(v)
			return i, e, true
		}
	}
	return -1, reflect.Value{}, false
}

// offerReflected offers the send cases of cases, with off.
func offerReflected(g *sched.G, off *offer, cases []reflect.SelectCase) {
	var sends []reflect.SelectCase
	var deliver []func(Case)
	off.index = off.index[:0]
	for i, c := range cases {
		if c.Dir == reflect.SelectSend && c.Chan.IsValid() && !c.Chan.IsNil() {
			x := c.Send
			sends = append(sends, c)
			deliver = append(deliver, func(rc Case) { rc.ch.reflected(rc, x, true) })
			off.index = append(off.index, i)
		}
	}
	off.hold(g, sends, deliver)
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
	g.StepReady(opClose, 0)
	v.Close()
	g.Changed(v.Pointer())
}

// isChanDir reports whether v is a channel that can be used in direction
// dir, whose operations reflect would not refuse.
func isChanDir(v reflect.Value, dir reflect.ChanDir) bool {
	return v.Kind() == reflect.Chan && v.Type().ChanDir()&dir != 0 && v.CanInterface()
}
