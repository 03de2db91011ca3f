// Package tune is ants' lost wakeup (v2.12.1, Tune): a pool whose capacity
// grows without its lock, so a caller that found it full and is about to
// wait misses the Broadcast, while a ticker goroutine that keeps the pool's
// clock goes on firing, and Go sees no deadlock.
package tune

import (
	"sync"
	"sync/atomic"
	"time"
)

// Pool admits up to its capacity of callers at once.
type Pool struct {
	mu       sync.Mutex
	cond     *sync.Cond
	capacity atomic.Int32
	running  int
	locked   bool // Tune takes the lock: the fix
	now      atomic.Int64
	stop     chan struct{}
}

// New returns a pool of capacity n, its clock ticking every 500 ms until
// Close; locked selects the fix.
func New(n int, locked bool) *Pool {
	p := &Pool{locked: locked, stop: make(chan struct{})}
	p.cond = sync.NewCond(&p.mu)
	p.capacity.Store(int32(n))
	go p.tick()
	return p
}

func (p *Pool) tick() {
	t := time.NewTicker(500 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
		}
		p.now.Store(time.Now().UnixNano())
	}
}

// Acquire waits until the pool has room and takes one place.
func (p *Pool) Acquire() {
	p.mu.Lock()
	for p.running >= int(p.capacity.Load()) {
		p.cond.Wait()
	}
	p.running++
	p.mu.Unlock()
}

// Tune sets the capacity, waking the callers that wait for room.
func (p *Pool) Tune(n int) {
	if p.locked {
		p.mu.Lock()
		defer p.mu.Unlock()
	}
	p.capacity.Store(int32(n))
	p.cond.Broadcast()
}

// Close stops the pool's clock.
func (p *Pool) Close() { close(p.stop) }
