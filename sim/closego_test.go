package sim_test

import (
	"testing"
	"time"

	"github.com/weftdev/weft/sim"
)

// A Go channel closed by a goroutine of the execution (weft test rewrites
// close of a channel left Go's to CloseGo) wakes the goroutines that poll
// it at once, as Go's receivers wake: ants' TestMultiPoolWithFunc closes
// the Go channel its workers wait on, then gives them three seconds to end,
// and a plain close left them stale until the three seconds had passed.
func TestCloseGoWakesStalePollers(t *testing.T) {
	exploreAll(t, func(c *checker) {
		ch := make(chan struct{}) // Go's: workers receive it through an any
		done := sim.NewChan[int](2)
		for i := range 2 {
			sim.Go(func() {
				sim.RecvGo(ch)
				done.Send(i)
			})
		}
		sim.Sleep(time.Millisecond) // the workers poll in vain, and wait
		sim.CloseGo(ch)
		timeout := sim.After(3 * time.Second)
		for range 2 {
			c.Equal("case", sim.Select(sim.OnRecv(done, nil), sim.OnRecv(timeout, nil)), 0)
		}
	})
}

func TestCloseGoPlain(t *testing.T) {
	ch := make(chan int)
	sim.CloseGo(ch)
	if _, ok := <-ch; ok {
		t.Fatal("CloseGo did not close the channel")
	}
}
