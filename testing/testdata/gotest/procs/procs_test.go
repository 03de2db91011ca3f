// Package procs starts a goroutine per processor, as worker pools do: its
// executions depend on GOMAXPROCS.
package procs

import (
	"runtime"
	"testing"

	"github.com/weftdev/weft/sim"
	weft "github.com/weftdev/weft/testing"
)

func TestProcs(t *testing.T) {
	weft.Check(t, func(t *weft.T) {
		var n sim.Int64
		var wg sim.WaitGroup
		for range runtime.GOMAXPROCS(0) {
			wg.Go(func() { n.Add(1) })
		}
		wg.Wait()
	})
}
