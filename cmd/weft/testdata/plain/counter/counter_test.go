package counter

import (
	"sync"
	"testing"
)

func twice(t *testing.T, c *Counter) {
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

func TestBug(t *testing.T)   { twice(t, &Counter{}) }
func TestFixed(t *testing.T) { twice(t, &Counter{fixed: true}) }
