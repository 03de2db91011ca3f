package sim_test

import (
	"testing"
	"time"

	"github.com/weftdev/weft/sim"
)

// goBuffer is eapache/channels' InfiniteChannel on Go channels (weft test
// leaves them Go's, as they meet reflect): a loop that selects between a
// receive from in and sends on out and length, and closes both when in is
// closed and drained.
func goBuffer(in <-chan any, out chan<- any, length chan<- int) {
	var buf []any
	input, output := in, chan<- any(nil)
	var next any
	for input != nil || output != nil {
		sim.Select(
			sim.OnRecvOKGo(input, func(v any, ok bool) {
				if ok {
					buf = append(buf, v)
				} else {
					input = nil
				}
			}),
			sim.OnSendGo(output, next, func() { buf = buf[1:] }),
			sim.OnSendGo(length, len(buf), nil))
		output, next = nil, nil
		if len(buf) > 0 {
			output, next = out, buf[0]
		}
	}
	sim.CloseGo(out)
	sim.CloseGo(length)
}

// goBufferBody runs a goBuffer of n values: a producer sends them, the
// root receives them, and goroutines ask its length meanwhile, as
// eapache/channels' testChannel and testChannelConcurrentAccessors do.
func goBufferBody(c *checker, n int) {
	in, out, length := make(chan any), make(chan any), make(chan int)
	sim.Go(func() { goBuffer(in, out, length) })
	sim.Go(func() {
		for i := range n {
			sim.SendGo(in, any(i))
		}
		sim.CloseGo(in)
	})
	sim.Go(func() { sim.RecvOKGo(length) })
	for i := range n {
		c.Equal("received", sim.RecvGo(out), any(i))
	}
	_, ok := sim.RecvOKGo(out)
	c.Equal("closed", ok, false)
}

// TestControlledGoBuffer: a buffer's loop on Go channels, fed by a
// sender and drained by a receiver that poll them too, moves its values
// without stall rounds: its select offers both its sends at once, and
// the receiver takes the one on the output from the handoff. Before, the
// select offered one send at a time, in turn, from a plain goroutine the
// receiver found only in real time, and each value waited for stall
// rounds: eapache/channels' TestInfiniteChannel, 1,000 values, ran for
// 30 s and failed as blocked, polling for 2 s in real time.
func TestControlledGoBuffer(t *testing.T) {
	const n = 100
	exploreAll(t, func(c *checker) {
		start := sim.Now()
		goBufferBody(c, n)
		// A stall round moves the clock by a microsecond or more; n
		// values of a handful of events each take a few nanoseconds.
		if d := sim.Since(start); d >= n*time.Microsecond/2 {
			c.Errorf("%d values took %v of virtual time: they waited for stall rounds", n, d)
		}
	})
}
