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
