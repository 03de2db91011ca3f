// Package logs logs from a test, its subtests and its goroutines.
package logs

import (
	"testing"

	"github.com/weftdev/weft/sim"
	weft "github.com/weftdev/weft/testing"
)

func TestLogs(t *testing.T) {
	weft.Check(t, func(t *weft.T) {
		t.Logf("hello from the body")
		t.Run("sub", func(t *weft.T) {
			done := sim.NewChan[bool](0)
			sim.Go(func() {
				t.Logf("hello from a goroutine of the subtest")
				done.Send(true)
			})
			done.Recv()
		})
	})
}
