// Package constructs uses every construct weft test instruments, with
// plain Go, in programs that are correct, but one.
package constructs

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"
)

// Stats is shared by workers.
type Stats struct {
	sync.RWMutex
	counts map[string]int
	hits   atomic.Int64
	raw    int64
}

// Record counts a word.
func (s *Stats) Record(word string) {
	s.Lock()
	s.counts[word]++
	s.Unlock()
	s.hits.Add(1)
	atomic.AddInt64(&s.raw, 1)
}

// Count reads a count.
func (s *Stats) Count(word string) int {
	s.RLock()
	defer s.RUnlock()
	return s.counts[word]
}

// LossyIncrement loads and stores an atomic separately: the one bug.
func (s *Stats) LossyIncrement() {
	v := atomic.LoadInt64(&s.raw)
	atomic.StoreInt64(&s.raw, v+1)
}

// Pipeline passes words through a stage with a directional channel.
func Pipeline(ctx context.Context, words []string, s *Stats) int {
	in := make(chan string)
	out := make(chan string, len(words))
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go stage(ctx, in, out, s, &wg)
	}
	go func() {
		defer close(in)
		for _, w := range words {
			select {
			case in <- w:
			case <-ctx.Done():
				return
			}
		}
	}()
	wg.Wait()
	close(out)
	n := 0
	for range out {
		n++
	}
	return n
}

func stage(ctx context.Context, in <-chan string, out chan<- string, s *Stats, wg *sync.WaitGroup) {
	defer wg.Done()
	for w := range in {
		s.Record(w)
		out <- w
	}
}

// Jitter sleeps a random few milliseconds, with a ticker and a timer.
func Jitter() time.Duration {
	start := time.Now()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	stop := time.NewTimer(time.Duration(1+rand.IntN(3)) * time.Millisecond)
	for {
		select {
		case <-tick.C:
		case <-stop.C:
			return time.Since(start)
		}
	}
}

// Cache computes each value once.
type Cache struct {
	m    sync.Map
	init func() int
}

// NewCache returns a cache whose init runs once.
func NewCache() *Cache { return &Cache{init: sync.OnceValue(func() int { return 42 })} }

// Get returns the value for key.
func (c *Cache) Get(key string) int {
	v, _ := c.m.LoadOrStore(key, c.init())
	return v.(int)
}

// Later runs f after d, unless ctx is done first.
func Later(ctx context.Context, d time.Duration, f func()) {
	done := make(chan struct{})
	t := time.AfterFunc(d, func() { f(); close(done) })
	select {
	case <-done:
	case <-ctx.Done():
		if t.Stop() {
			return
		}
		<-done
	}
}
