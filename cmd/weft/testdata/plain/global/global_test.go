// Package global shares a package-level sync.RWMutex between the
// executions of an exploration: never two at once.
package global

import (
	"sync"
	"testing"
)

var mu sync.RWMutex // package-level: shared by executions that run in parallel

func TestGlobal(t *testing.T) {
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 10; j++ {
				mu.Lock()
				mu.Unlock()
				mu.RLock()
				mu.RUnlock()
			}
		}()
	}
	wg.Wait()
}
