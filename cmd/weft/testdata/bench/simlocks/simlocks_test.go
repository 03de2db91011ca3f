// Package simlocks is the body of BenchmarkWorkers written with sim: two
// goroutines that take and release a lock five times each.
package simlocks

import (
	"testing"

	"github.com/weftdev/weft/sim"
	weft "github.com/weftdev/weft/testing"
)

func TestLocks(t *testing.T) {
	weft.Check(t, func(t *weft.T) {
		var mu sim.Mutex
		var wg sim.WaitGroup
		for range 2 {
			wg.Go(func() {
				for range 5 {
					mu.Lock()
					mu.Unlock()
				}
			})
		}
		wg.Wait()
	})
}
