package counter

import (
	"sync"
	"testing"

	"pgregory.net/rapid"

	"github.com/weftdev/weft/lin"
	weft "github.com/weftdev/weft/testing"
)

func spec(newCounter func() *Counter) lin.Spec[*Counter, int] {
	return lin.Spec[*Counter, int]{
		New:  newCounter,
		Init: func() int { return 0 },
		Ops: []lin.Operation[*Counter, int]{
			lin.Op0("Inc", func(c *Counter) any { c.Inc(); return nil }, func(n int) (int, any) { return n + 1, nil }),
			lin.Op0("Get", (*Counter).Get, func(n int) (int, int) { return n, n }),
		},
	}
}

func TestBug(t *testing.T)   { lin.Check(t, spec(NewRacy), weft.Iterations(3000)) }
func TestFixed(t *testing.T) { lin.Check(t, spec(New), weft.Iterations(300)) }

// TestHits is a property test of plain Go: n goroutines hit the counter
// once each, n drawn by rapid.
func TestHits(t *testing.T) {
	weft.Property(t, func(t *weft.T, r *rapid.T) {
		n := rapid.IntRange(1, 4).Draw(r, "n")
		var h Hits
		var wg sync.WaitGroup
		for range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				h.Hit()
			}()
		}
		wg.Wait()
		if got := h.Get(); got != n {
			t.Errorf("Get = %d after %d hits", got, n)
		}
	}, weft.Iterations(1000))
}
