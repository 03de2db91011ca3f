package helperfail

import (
	"sync"
	"testing"
)

// expect is a helper that reports through its caller's t.
func expect(t *testing.T, got, want int) {
	t.Helper()
	if got != want {
		t.Errorf("count = %d, want %d", got, want)
	}
}

func TestLostUpdate(t *testing.T) {
	c := &Counter{}
	step := make(chan struct{}, 2)
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Inc(step)
		}()
	}
	wg.Wait()
	done := make(chan bool)
	go func() {
		expect(t, c.n, 2) // a helper failing from another goroutine
		done <- true
	}()
	<-done
}
