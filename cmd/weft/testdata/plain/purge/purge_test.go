package purge

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
)

// TestPool leaves a worker idle until the purge loop, which runs outside
// the test's executions, takes it and hands it its nil; then it releases
// the pool, as ants' TestAntsPool does. An execution after the first
// submits to the released pool.
func TestPool(t *testing.T) {
	defer Release()
	var wg sync.WaitGroup
	wg.Add(1)
	if err := Submit(func() { wg.Done() }); err != nil {
		return
	}
	wg.Wait()
	for Idle() == 0 {
		runtime.Gosched()
	}
	WaitPurged()
}

// ExampleReboot runs in plain mode after TestPool, as ants' ExamplePool
// does: Reboot waits until the pool's workers all ended.
func ExampleReboot() {
	Reboot()
	var wg sync.WaitGroup
	wg.Add(1)
	if err := Submit(func() { wg.Done() }); err != nil {
		fmt.Println(err)
		return
	}
	wg.Wait()
	fmt.Println("rebooted")
	// Output: rebooted
}
