package simctx_test

import (
	"fmt"
	"time"

	"github.com/weftdev/weft/explore"
	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
	"github.com/weftdev/weft/sim/simctx"
)

// Under control, a timeout of an hour fires on virtual time, as soon as
// every goroutine waits.
func ExampleWithTimeout() {
	r := sched.Run(func() {
		ctx, cancel := simctx.WithTimeout(simctx.Background(), time.Hour)
		defer cancel()
		reply := sim.NewChan[string](1)
		sim.Go(func() {
			sim.Sleep(2 * time.Hour) // a slow server
			reply.Send("pong")
		})
		sim.Select(
			sim.OnRecv(reply, func(s string) { fmt.Println(s) }),
			sim.OnRecv(ctx.Done(), func(struct{}) { fmt.Println(ctx.Err()) }),
		)
	}, explore.RandomWalk(1), sched.Options{})
	fmt.Println(r.Failure, r.Elapsed.Round(time.Millisecond)) // every event takes a few nanoseconds too
	// Output:
	// context deadline exceeded
	// <nil> 2h0m0s
}
