// Package flaky fails the first execution of each process: a failure that
// depends on package-level state, which no replay shows.
package flaky

import (
	"sync/atomic"
	"testing"

	weft "github.com/weftdev/weft/testing"
)

var runs atomic.Int64

func TestFlaky(t *testing.T) {
	weft.Check(t, func(t *weft.T) {
		if runs.Add(1) == 1 {
			t.Errorf("the first run fails")
		}
	})
}
