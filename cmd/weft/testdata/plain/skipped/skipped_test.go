package skipped

import (
	"sync"
	"testing"

	"example.com/plain/skipped/lib"
)

// TestCallbacks hands lib functions that lock the test's mutex and send on
// its channel, which lib runs on goroutines it starts with plain go
// statements, weft test leaving lib as it is. Those goroutines carry the
// identity of the test's, which started them, but are none of the
// execution's: they leave it at their first operation of weft's, and
// their locks and sends visit it. Before, they were taken for the test's
// goroutine while it held the execution's turn, and failed the execution
// as escapes while it waited: their operations and its own ran at once on
// weft's tables (etcd raft's rafttest crashed the test process so).
func TestCallbacks(t *testing.T) {
	const n = 4
	var mu sync.Mutex
	count := 0
	results := make(chan int, n)
	mu.Lock() // the workers wait for the test to let them go
	for i := range n {
		lib.Go(func() {
			mu.Lock()
			count++
			mu.Unlock()
			results <- i
		})
	}
	if len(results) != 0 {
		t.Fatal("a worker ran before it was let go")
	}
	mu.Unlock()
	sum := 0
	for range n {
		sum += <-results
	}
	mu.Lock()
	defer mu.Unlock()
	if count != n || sum != n*(n-1)/2 {
		t.Errorf("count %d, sum %d; want %d, %d", count, sum, n, n*(n-1)/2)
	}
}
