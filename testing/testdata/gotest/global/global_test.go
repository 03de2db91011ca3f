// Package global shares a package-level lock between the executions of
// an exploration: never two at once.
package global

import (
	"testing"

	"github.com/weftdev/weft/sim"
	weft "github.com/weftdev/weft/testing"
)

var mu sim.RWMutex

func TestGlobal(t *testing.T) {
	weft.Check(t, func(t *weft.T) {
		var wg sim.WaitGroup
		for range 4 {
			wg.Go(func() {
				for range 10 {
					mu.Lock()
					mu.Unlock()
					mu.RLock()
					mu.RUnlock()
				}
			})
		}
		wg.Wait()
	})
}
