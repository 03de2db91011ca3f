package sim_test

import (
	"fmt"
	"time"

	"github.com/weftdev/weft/explore"
	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
)

// In plain mode, a channel is a Go channel.
func ExampleChan_All() {
	ch := sim.NewChan[string](0)
	sim.Go(func() {
		for _, s := range []string{"a", "b", "c"} {
			ch.Send(s)
		}
		ch.Close()
	})
	for s := range ch.All() {
		fmt.Print(s, " ")
	}
	fmt.Println()
	// Output: a b c
}

// Select with OnDefault does not wait.
func ExampleSelect() {
	jobs := sim.NewChan[int](1)
	for range 2 {
		switch sim.Select(
			sim.OnRecv(jobs, func(j int) { fmt.Println("job", j) }),
			sim.OnDefault(func() { fmt.Println("no job; queueing one") }),
		) {
		case 1:
			jobs.Send(7)
		}
	}
	// Output:
	// no job; queueing one
	// job 7
}

// Under control, time is virtual: a timeout of an hour fires at once, as soon
// as every goroutine waits.
func ExampleAfter() {
	r := sched.Run(func() {
		reply := sim.NewChan[string](1)
		sim.Go(func() {
			sim.Sleep(2 * time.Hour) // a slow server
			reply.Send("pong")
		})
		sim.Select(
			sim.OnRecv(reply, func(s string) { fmt.Println(s) }),
			sim.OnRecv(sim.After(time.Hour), func(time.Time) { fmt.Println("timeout") }),
		)
	}, explore.RandomWalk(1), sched.Options{})
	fmt.Println(r.Failure, r.Elapsed.Round(time.Millisecond)) // every event takes a few nanoseconds too
	// Output:
	// timeout
	// <nil> 2h0m0s
}

// The controller interleaves the events of goroutines: some schedule loses
// one of two unprotected increments, and its Schedule replays it.
func ExampleVar() {
	body := func() {
		var x sim.Var[int]
		var wg sim.WaitGroup
		for range 2 {
			wg.Go(func() { x.Store(x.Load() + 1) })
		}
		wg.Wait()
		if x.Load() != 2 {
			panic("lost update")
		}
	}
	for seed := range uint64(100) {
		r := sched.Run(body, explore.RandomWalk(seed), sched.Options{})
		if r.Failure != nil {
			again := sched.Run(body, explore.Follow(r.Schedule()), sched.Options{})
			fmt.Println(r.Failure.Kind, r.Failure.Message, again.Hash == r.Hash)
			return
		}
	}
	// Output: panic lost update true
}
