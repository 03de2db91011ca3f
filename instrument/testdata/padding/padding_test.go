package padding

import (
	"sync"
	"testing"
)

func TestAdd(t *testing.T) {
	var c Counter
	var wg sync.WaitGroup
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Add(i, 2)
		}()
	}
	wg.Wait()
	if s := c.Sum(); s != 6 {
		t.Fatalf("sum %d", s)
	}
}
