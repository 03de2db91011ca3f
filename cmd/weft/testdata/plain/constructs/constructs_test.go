package constructs

import (
	"context"
	"sync"
	"testing"
	"time"
)

func TestFixedPipeline(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := &Stats{counts: map[string]int{}}
	if n := Pipeline(ctx, []string{"a", "b", "a"}, s); n != 3 {
		t.Fatalf("Pipeline = %d", n)
	}
	if s.Count("a") != 2 || s.hits.Load() != 3 {
		t.Errorf("counts %v, hits %d", s.counts, s.hits.Load())
	}
}

func TestFixedJitter(t *testing.T) {
	// 1 to 3 ms in weft's virtual time; go test's real time on a loaded
	// machine can take much longer.
	if d := Jitter(); d < time.Millisecond || d > time.Second {
		t.Errorf("Jitter took %v", d)
	}
}

func TestFixedCache(t *testing.T) {
	c := NewCache()
	var wg sync.WaitGroup
	for _, k := range []string{"x", "y", "x"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if c.Get(k) != 42 {
				t.Error("wrong value")
			}
		}()
	}
	wg.Wait()
}

func TestFixedLater(t *testing.T) {
	ran := make(chan bool, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Millisecond)
	defer cancel()
	Later(ctx, time.Millisecond, func() { ran <- true })
	select {
	case <-ran:
	default:
		t.Error("f did not run before the deadline")
	}
}

func TestBug(t *testing.T) {
	s := &Stats{counts: map[string]int{}}
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.LossyIncrement()
		}()
	}
	wg.Wait()
	if s.raw != 2 {
		t.Errorf("raw = %d, want 2", s.raw)
	}
}
