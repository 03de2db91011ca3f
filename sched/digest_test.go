package sched_test

import (
	"testing"

	"github.com/weftdev/weft/sched"
)

// A primed digest (Prime, AddPrimed, Sum: a recorded goroutine's reads)
// sums to what Add makes of the same values, none included.
func TestPrimedDigestIsAdds(t *testing.T) {
	values := []uint64{0, 1, 1 << 63, 0xcbf29ce484222325, 7, 0}
	for n := 0; n <= len(values); n++ {
		var want, primed sched.Digest
		primed.Prime()
		for _, v := range values[:n] {
			want.Add(v)
			primed.AddPrimed(v)
		}
		if got := primed.Sum(); got != want {
			t.Errorf("%d values: primed digest %+v, Add's %+v", n, got, want)
		}
	}
}
