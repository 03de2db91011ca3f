package sim_test

import (
	"testing"
	"time"

	"github.com/weftdev/weft/internal/simtest"
	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
)

// goBuffer is eapache/channels' InfiniteChannel on Go channels (weft test
// leaves them Go's, as they meet reflect): a loop that selects between a
// receive from in and sends on out and on a length channel, and closes out
// when in is closed and drained. onLength is the case of the length
// channel's send (one of weft's, or a Go channel's); at size values held,
// it stops receiving (ResizableChannel, of size 1 by default).
func goBuffer(in <-chan any, out chan<- any, onLength func(n int) sim.Case, size int) {
	var buf []any
	input, output := in, chan<- any(nil)
	var next any
	for input != nil || output != nil {
		sim.Select(
			sim.OnRecvOKGo(input, func(v any, ok bool) {
				if ok {
					buf = append(buf, v)
				} else {
					input, in = nil, nil
				}
			}),
			sim.OnSendGo(output, next, func() { buf = buf[1:] }),
			onLength(len(buf)))
		output, next = nil, nil
		if len(buf) > 0 {
			output, next = out, buf[0]
		}
		if input = in; len(buf) >= size {
			input = nil
		}
	}
	sim.CloseGo(out)
}

// goBufferBody runs a goBuffer of n values: a producer sends them, the
// root receives them, and a goroutine asks its length meanwhile, as
// eapache/channels' testChannel and testChannelConcurrentAccessors do.
// With weftLength the length channel is one of weft's (a select that
// mixes weft's channels and Go's), and the buffer holds one value at most.
func goBufferBody(c *checker, n int, weftLength bool) {
	in, out := make(chan any), make(chan any)
	if weftLength {
		length := sim.NewChan[int](0)
		sim.Go(func() {
			goBuffer(in, out, func(n int) sim.Case { return sim.OnSend(length, n, nil) }, 1)
		})
		sim.Go(func() { length.Recv() })
	} else {
		length := make(chan int)
		sim.Go(func() {
			goBuffer(in, out, func(n int) sim.Case { return sim.OnSendGo(length, n, nil) }, n)
			sim.CloseGo(length)
		})
		sim.Go(func() { sim.RecvOKGo(length) })
	}
	sim.Go(func() {
		for i := range n {
			sim.SendGo(in, any(i))
		}
		sim.CloseGo(in)
	})
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
// 30 s and failed as blocked, polling for 2 s in real time. Its loop
// mixing weft's channels and Go's (ResizableChannel), the select withdrew
// its offer before its select of weft's cases, where its receiver then
// missed it, and, stale, it missed the receiver's take (a change made at
// the receiver's poll, a Yield, which changes nothing by itself): a stall
// round at almost every value.
func TestControlledGoBuffer(t *testing.T) {
	const n = 100
	for _, weftLength := range []bool{false, true} {
		rs := simtest.ExploreAll(t, seeds, func(c *checker) { goBufferBody(c, n, weftLength) })
		for i, r := range rs {
			// Each event moves the clock by a Tick, each stall round by a
			// microsecond or more.
			if ticks := time.Duration(r.Steps) * sched.Tick; r.Elapsed > ticks {
				t.Fatalf("execution %d (weft's length channel: %v): %v of virtual time in %d events: stall rounds took %v", i, weftLength, r.Elapsed, r.Steps, r.Elapsed-ticks)
			}
		}
	}
}
