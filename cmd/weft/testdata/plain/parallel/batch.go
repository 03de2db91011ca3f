// Package parallel checks that weft test runs parallel subtests under go
// test's -parallel limit: at most that many at once.
package parallel

import (
	"sync"
	"time"
)

// Loader batches the keys loaded within wait of the first into one fetch,
// as a data loader does.
type Loader struct {
	wait    time.Duration
	mu      sync.Mutex
	pending []string
	done    chan struct{} // closed when the pending batch is fetched
	batches [][]string
}

// NewLoader returns a loader whose batches collect keys for wait.
func NewLoader(wait time.Duration) *Loader { return &Loader{wait: wait} }

// Load adds key to the pending batch and waits for its fetch.
func (l *Loader) Load(key string) {
	l.mu.Lock()
	if l.pending == nil {
		l.done = make(chan struct{})
		go l.fetch(l.done)
	}
	l.pending = append(l.pending, key)
	done := l.done
	l.mu.Unlock()
	<-done
}

func (l *Loader) fetch(done chan struct{}) {
	time.Sleep(l.wait)
	l.mu.Lock()
	l.batches = append(l.batches, l.pending)
	l.pending = nil
	l.mu.Unlock()
	close(done)
}

// Batches returns the batches fetched so far.
func (l *Loader) Batches() [][]string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.batches
}
