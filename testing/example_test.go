package weft_test

import (
	"fmt"

	"github.com/weftdev/weft/sim"
	weft "github.com/weftdev/weft/testing"
)

// counter is a test body with a bug: two goroutines increment a counter
// with a load and a store, not atomically.
func counter(t *weft.T) {
	c := sim.NewVar(0)
	var wg sim.WaitGroup
	for range 2 {
		wg.Add(1)
		sim.Go(func() {
			defer wg.Done()
			v := c.Load()
			c.Store(v + 1)
		})
	}
	wg.Wait()
	if got := c.Load(); got != 2 {
		t.Errorf("counter = %d, want 2", got)
	}
}

// Find explores a body as weft.Check does, outside go test and without
// saving: the failure it returns is minimized, and its entry is what Check
// would save under testdata/weft. Follow runs along that schedule again.
func ExampleFind() {
	f, err := weft.Find(counter, weft.Seed(1), weft.Name("TestCounter"))
	if err != nil || f == nil {
		fmt.Println("no failure:", err)
		return
	}
	fmt.Println("found:", f.Failure.Message)
	fmt.Println("preemptions:", f.Entry.Preemptions)
	r, drift, err := weft.Follow(counter, f.Entry.Schedule)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("replayed:", r.Failure.Message, "- drift:", len(drift))
	// Output:
	// found: counter = 1, want 2
	// preemptions: 1
	// replayed: counter = 1, want 2 - drift: 0
}
