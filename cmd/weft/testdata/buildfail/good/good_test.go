package good

import (
	"sync"
	"testing"
)

func TestGood(t *testing.T) {
	var c Counter
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		c.Add()
		wg.Done()
	}()
	c.Add()
	wg.Wait()
	if c.N() != 2 {
		t.Fatalf("count %d, want 2", c.N())
	}
}
