// Package parallel's parallel subtests meet: they pass only with two
// -parallel slots, which worker processes, at GOMAXPROCS=1, must be given.
package parallel

import (
	"testing"

	"github.com/weftdev/weft/sim"
	weft "github.com/weftdev/weft/testing"
)

func TestMeet(t *testing.T) {
	weft.Check(t, func(t *weft.T) {
		ch := sim.NewChan[int](0)
		t.Run("group", func(t *weft.T) {
			t.Run("receiver", func(t *weft.T) {
				t.Parallel()
				ch.Recv()
			})
			t.Run("sender", func(t *weft.T) {
				t.Parallel()
				ch.Send(1)
			})
		})
	})
}
