// Package found has a bug that takes a few hundred executions to find.
package found

import (
	"testing"

	"github.com/weftdev/weft/sim"
	weft "github.com/weftdev/weft/testing"
)

func TestOrdered(t *testing.T) {
	weft.Check(t, func(t *weft.T) {
		var order sim.Var[int]
		var wg sim.WaitGroup
		for g := 1; g <= 4; g++ {
			wg.Go(func() {
				for range sim.Intn(5) {
					sim.Yield()
				}
				order.Store(order.Load()*10 + g)
			})
		}
		wg.Wait()
		if order.Load() == 4321 {
			t.Errorf("the last goroutine wrote first")
		}
	})
}
