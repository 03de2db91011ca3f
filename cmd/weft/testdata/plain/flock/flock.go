//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

// Package flock locks a file as gofrs/flock does: syscall.Flock on a
// descriptor of its own, which waits in the kernel while another open file
// of the same path holds the lock, a goroutine's of the same process as
// well as another process's.
package flock

import (
	"fmt"
	"os"
	"syscall"
)

// A Lock is an open file to lock.
type Lock struct{ f *os.File }

// Open opens path, creating it, for locking.
func Open(path string) (*Lock, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock %s: %w", path, err)
	}
	return &Lock{f}, nil
}

// Lock takes the lock, waiting for it.
func (l *Lock) Lock() error { return syscall.Flock(int(l.f.Fd()), syscall.LOCK_EX) }

// TryLock takes the lock if no one holds it.
func (l *Lock) TryLock() bool {
	return syscall.Flock(int(l.f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil
}

// Unlock releases the lock.
func (l *Lock) Unlock() error { return syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN) }

// Close closes the file, releasing the lock.
func (l *Lock) Close() error { return l.f.Close() }
