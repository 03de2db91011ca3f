package basic

import (
	"sync"
	"time"
)

// Counter counts under a lock.
type Counter struct {
	sync.Mutex
	n    int
	done chan struct{}
}

func (c *Counter) Inc() {
	c.Lock()
	defer c.Unlock()
	c.n++
}

// Run increments from n goroutines and waits for them.
func Run(n int) int {
	c := &Counter{done: make(chan struct{})}
	var wg sync.WaitGroup
	results := make(chan int, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Inc()
			results <- i
		}()
	}
	go worker(c, results, n)
	wg.Wait()
	close(results)
	sum := 0
	for v := range results {
		sum += v
	}
	select {
	case <-c.done:
	case <-time.After(time.Second):
		sum = -1
	}
	return sum
}

func worker(c *Counter, in <-chan int, n int) {
	time.Sleep(time.Millisecond)
	v, ok := <-in
	_, _ = v, ok
	close(c.done)
}

// First returns the first of two values.
func First(a, b <-chan string) (string, bool) {
	select {
	case v := <-a:
		return v, true
	case v, ok := <-b:
		return v, ok
	default:
		return "", false
	}
}
