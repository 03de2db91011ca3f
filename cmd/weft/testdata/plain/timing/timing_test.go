package timing

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

var loaded = time.Now() // taken at package init, before any execution

func TestBug(t *testing.T) {
	var c Cache
	Warm(&c, 5, false)
	if n := c.Len(); n != 5 {
		t.Errorf("Len = %d after warming, want 5", n)
	}
}

func TestFixedWarm(t *testing.T) {
	var c Cache
	Warm(&c, 5, true)
	if n := c.Len(); n != 5 {
		t.Errorf("Len = %d after warming, want 5", n)
	}
}

// The clock moves between events, and never back before package init.
func TestFixedClock(t *testing.T) {
	var mu sync.Mutex
	mu.Lock()
	t1 := time.Now()
	mu.Unlock()
	mu.Lock()
	t2 := time.Now()
	mu.Unlock()
	if !t2.After(t1) {
		t.Errorf("time did not advance: %v then %v", t1, t2)
	}
	if d := time.Since(loaded); d < 0 {
		t.Errorf("time went backwards: time.Since(loaded) = %v", d)
	}
}

// A goroutine that spins with Gosched lets the sleeper wake.
func TestFixedSpin(t *testing.T) {
	var stop atomic.Bool
	done := make(chan struct{})
	go func() {
		SpinUntil(&stop)
		close(done)
	}()
	time.Sleep(time.Millisecond)
	stop.Store(true)
	<-done
}

// A loop that polls with a select and a default lets a timer fire, and
// sees a close.
func TestFixedPoll(t *testing.T) {
	fired := make(chan struct{})
	time.AfterFunc(10*time.Millisecond, func() { close(fired) })
	PollUntil(fired)

	closed := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		PollUntil(closed)
	}()
	close(closed)
	wg.Wait()
}

// A loop whose select always has a ready case does not starve the sender
// of its stop signal.
func TestFixedFair(t *testing.T) {
	stop := make(chan bool)
	go func() {
		for {
			done := make(chan bool, 1)
			go func() { done <- true }()
			select {
			case <-stop:
				return
			case <-done:
			}
		}
	}()
	stop <- true
}

// A goroutine still ranging over a ticker when the test returns kept
// running: a line in the log, not a leak.
func TestFixedTicker(t *testing.T) {
	go func() {
		tk := time.NewTicker(time.Millisecond)
		for range tk.C {
		}
	}()
	time.Sleep(5 * time.Millisecond)
}
