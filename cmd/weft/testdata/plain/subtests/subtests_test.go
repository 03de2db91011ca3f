// Package subtests checks that weft test selects subtests as go test does.
package subtests

import (
	"sync"
	"testing"
)

func TestSub(t *testing.T) {
	t.Run("good", func(t *testing.T) {
		var mu sync.Mutex
		mu.Lock()
		mu.Unlock()
	})
	t.Run("bad", func(t *testing.T) {
		t.Error("always fails")
	})
}
