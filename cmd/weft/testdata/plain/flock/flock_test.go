//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package flock

import (
	"path/filepath"
	"testing"
)

// TestFixed waits for a lock that the test itself holds, as gofrs/flock's
// TestFlock_Lock does: the goroutine's Lock waits until the test's Unlock,
// and then holds the lock.
func TestFixed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	held, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	waiter, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer waiter.Close()
	if err := held.Lock(); err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	locked := make(chan error, 1)
	go func() {
		close(started)
		locked <- waiter.Lock()
	}()
	<-started
	if err := held.Unlock(); err != nil {
		t.Fatal(err)
	}
	if err := <-locked; err != nil {
		t.Fatalf("the goroutine's Lock: %v", err)
	}
	if held.TryLock() {
		t.Fatal("the lock was taken twice")
	}
}
