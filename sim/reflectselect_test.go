package sim_test

import (
	"reflect"
	"testing"

	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
)

// TestControlledReflectSelect: under control, reflect.Select on Go
// channels (weft test's rewrite, sim.ReflectSelect) waits for controlled
// goroutines yet to run, as eapache/channels' Multiplex and Tee do: a
// receive from a goroutine that sends after it, and a send to one that
// receives by polling, through the offer of its send case; before, the
// goroutine blocked in reflect.Select outside weft's control while the
// other could not run (8 of eapache/channels' tests reported blocked).
func TestControlledReflectSelect(t *testing.T) {
	exploreAll(t, func(c *checker) {
		in, out := make(chan any), make(chan any)
		sim.Go(func() { sim.SendGo(in, any(4)) })
		sim.Go(func() {
			v := sim.RecvGo(out)
			c.Equal("value received", v, any(5))
		})
		cases := []reflect.SelectCase{
			{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(in)},
			{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(nil)},
		}
		i, v, ok := sim.ReflectSelect(cases)
		c.Equal("case", i, 0)
		c.Equal("value", v.Interface(), any(4))
		c.Equal("ok", ok, true)
		i, _, _ = sim.ReflectSelect([]reflect.SelectCase{{Dir: reflect.SelectSend, Chan: reflect.ValueOf(out), Send: reflect.ValueOf(5)}})
		c.Equal("send case", i, 0)
		i, _, _ = sim.ReflectSelect([]reflect.SelectCase{{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(in)}, {Dir: reflect.SelectDefault}})
		c.Equal("default case", i, 1)
	})
	ch := make(chan int, 1)
	if i, _, _ := sim.ReflectSelect([]reflect.SelectCase{{Dir: reflect.SelectSend, Chan: reflect.ValueOf(ch), Send: reflect.ValueOf(1)}}); i != 0 || <-ch != 1 {
		t.Fatalf("ReflectSelect outside an execution = %d", i)
	}
}

// TestControlledReflectChanOps: under control, reflect.Value's channel
// operations on Go channels (weft test's rewrite, sim.ReflectRecv,
// ReflectSend, ReflectClose, ReflectTryRecv, ReflectTrySend) wait for
// controlled goroutines yet to run, as eapache/channels' Wrap and Unwrap
// do; before, v.Recv and v.Send blocked outside weft's control.
func TestControlledReflectChanOps(t *testing.T) {
	exploreAll(t, func(c *checker) {
		in, out := make(chan int), make(chan int)
		sim.Go(func() { sim.SendGo(in, 4) })
		sim.Go(func() {
			v, ok := sim.RecvOKGo(out)
			c.Equal("value received", v, 5)
			c.Equal("ok", ok, true)
			_, ok = sim.RecvOKGo(out)
			c.Equal("closed", ok, false)
		})
		x, ok := sim.ReflectRecv(reflect.ValueOf(in))
		c.Equal("value", x.Interface(), any(4))
		c.Equal("ok", ok, true)
		sim.ReflectSend(reflect.ValueOf(out), reflect.ValueOf(5))
		sim.ReflectClose(reflect.ValueOf(out))
		buf := reflect.ValueOf(make(chan int, 1))
		x, _ = sim.ReflectTryRecv(buf)
		c.Equal("empty", x.IsValid(), false)
		c.Equal("sent", sim.ReflectTrySend(buf, reflect.ValueOf(6)), true)
		c.Equal("full", sim.ReflectTrySend(buf, reflect.ValueOf(7)), false)
		x, _ = sim.ReflectTryRecv(buf)
		c.Equal("tried", x.Interface(), any(6))
	})
	ch := make(chan int, 1)
	sim.ReflectSend(reflect.ValueOf(ch), reflect.ValueOf(1))
	if x, ok := sim.ReflectRecv(reflect.ValueOf(ch)); !ok || x.Interface() != 1 {
		t.Fatalf("ReflectRecv outside an execution = %v, %v", x, ok)
	}
	sim.ReflectClose(reflect.ValueOf(ch))
	if _, ok := <-ch; ok {
		t.Fatal("ReflectClose outside an execution did not close")
	}
}

// TestControlledNilGoChannels: a send on a nil Go channel, and a
// reflect.Select on nil channels alone, wait forever as on weft's nil
// channels, not for the world outside: a goroutine left so when the test
// returns is a leak, found at once, where they polled for the block
// timeout in real time and failed as blocked (eapache/channels'
// TestDeadChannel, whose DeadChannel's In and Out are nil).
func TestControlledNilGoChannels(t *testing.T) {
	for _, op := range []func(){
		func() { sim.SendGo(chan int(nil), 1) },
		func() { sim.ReflectRecv(reflect.ValueOf(chan int(nil))) },
	} {
		r := runOnce(func() { sim.Go(op) })
		wantFailure(t, r, sched.Leak, "")
	}
}
