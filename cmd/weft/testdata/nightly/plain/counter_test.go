package plain

import (
	"sync"
	"testing"
)

// TestBug is a lost update in plain Go: weft nightly explores it as weft
// test does.
func TestBug(t *testing.T) {
	c := &Counter{}
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Inc()
		}()
	}
	wg.Wait()
	if got := c.Value(); got != 2 {
		t.Errorf("Value = %d, want 2", got)
	}
}
