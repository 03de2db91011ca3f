// Package subtests checks that weft test selects subtests as go test does,
// and shows their names, results and logs.
package subtests

import (
	"sync"
	"testing"
)

func TestSub(t *testing.T) {
	t.Logf("before the subtests")
	t.Run("good", func(t *testing.T) {
		var mu sync.Mutex
		mu.Lock()
		t.Logf("good runs")
		mu.Unlock()
	})
	t.Run("bad", func(t *testing.T) {
		t.Fatal("always fails")
		t.Log("not reached")
	})
	t.Run("skipped", func(t *testing.T) {
		t.Skip("skips itself")
	})
}

// TestParallel's subtests meet, as go test runs them: together, once
// their parent's function has returned (weft test ran them one after the
// other, and the receiver waited forever).
func TestParallel(t *testing.T) {
	ch := make(chan int)
	t.Run("group", func(t *testing.T) {
		t.Run("receiver", func(t *testing.T) {
			t.Parallel()
			if v := <-ch; v != 1 {
				t.Errorf("received %d", v)
			}
		})
		t.Run("sender", func(t *testing.T) {
			t.Parallel()
			ch <- 1
		})
	})
}
