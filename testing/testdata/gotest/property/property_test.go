package property

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/weftdev/weft/sim"
	weft "github.com/weftdev/weft/testing"
)

// count runs n goroutines that add one each, n drawn by rapid, with a
// lost update unless atomic is set.
func count(atomic bool) func(*weft.T, *rapid.T) {
	return func(t *weft.T, r *rapid.T) {
		n := rapid.IntRange(1, 4).Draw(r, "n")
		var v sim.Var[int]
		var a sim.Int64
		var wg sim.WaitGroup
		for range n {
			wg.Go(func() {
				if atomic {
					a.Add(1)
					return
				}
				v.Store(v.Load() + 1)
			})
		}
		wg.Wait()
		if got := v.Load() + int(a.Load()); got != n {
			t.Errorf("count = %d after %d increments", got, n)
		}
	}
}

func TestLost(t *testing.T)   { weft.Property(t, count(false)) }
func TestAtomic(t *testing.T) { weft.Property(t, count(true)) }
