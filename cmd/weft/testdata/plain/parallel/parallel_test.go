package parallel

import (
	"sync"
	"testing"
	"time"
)

// TestMeet's parallel subtests hand each other a value: they pass only when
// both run at once. Under go test's -parallel 1 (the default on one CPU)
// the first holds the only slot while it waits for the other, which waits
// for the slot: go test hangs, weft test reports a deadlock.
func TestMeet(t *testing.T) {
	ch := make(chan int)
	t.Run("group", func(t *testing.T) {
		t.Run("receiver", func(t *testing.T) {
			t.Parallel()
			if v := <-ch; v != 1 {
				t.Errorf("received %d", v)
			}
		})
		t.Run("sender", func(t *testing.T) {
			t.Parallel()
			ch <- 1
		})
	})
}

// TestBatch is vikstrous/dataloadgen's TestUserLoader in small: four
// parallel subtests load a key each through one loader, and the test
// expects a single batch, which holds only when all four run at once (go
// test's -parallel 4 or more). With fewer slots, the keys of the later
// subtests come after the first batch was fetched.
func TestBatch(t *testing.T) {
	l := NewLoader(10 * time.Millisecond)
	t.Run("group", func(t *testing.T) {
		for _, key := range []string{"a", "b", "c", "d"} {
			t.Run(key, func(t *testing.T) {
				t.Parallel()
				l.Load(key)
			})
		}
	})
	if b := l.Batches(); len(b) != 1 {
		t.Errorf("batches %v, want one", b)
	}
}

// TestFixedParallel's parallel subtests share a counter under a mutex:
// correct under any -parallel limit.
func TestFixedParallel(t *testing.T) {
	var mu sync.Mutex
	n := 0
	t.Run("group", func(t *testing.T) {
		for _, name := range []string{"a", "b", "c"} {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				mu.Lock()
				n++
				mu.Unlock()
			})
		}
	})
	if n != 3 {
		t.Errorf("n = %d, want 3", n)
	}
}
