// Package crash kills its process in one execution in 40.
package crash

import (
	"testing"

	"github.com/weftdev/weft/sim"
	weft "github.com/weftdev/weft/testing"
)

func TestCrash(t *testing.T) {
	weft.Check(t, func(t *weft.T) {
		if sim.Intn(40) == 0 {
			go panic("boom")
			select {}
		}
	})
}
