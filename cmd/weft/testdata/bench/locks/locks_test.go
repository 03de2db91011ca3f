// Package locks is the body of BenchmarkWorkers in plain Go: two
// goroutines that take and release a lock five times each.
package locks

import (
	"sync"
	"testing"
)

func TestLocks(t *testing.T) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 5; j++ {
				mu.Lock()
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
}
