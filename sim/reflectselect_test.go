package sim_test

import (
	"reflect"
	"testing"

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
