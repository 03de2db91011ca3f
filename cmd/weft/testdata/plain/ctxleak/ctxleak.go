// Package ctxleak leaks a goroutine waiting for a context nobody cancels:
// Watch forgets to call cancel on the happy path.
package ctxleak

import (
	"context"
	"time"
)

// Watch starts a watcher that stops when its context is done, does the
// work, and returns.
func Watch(parent context.Context, work func() error, fixed bool) error {
	ctx, cancel := context.WithCancel(parent)
	if fixed {
		defer cancel()
	}
	stopped := make(chan struct{})
	go func() {
		<-ctx.Done()
		close(stopped)
	}()
	if err := work(); err != nil {
		cancel()
		<-stopped
		return err
	}
	return nil
}

// Slow is work with a deadline: it fails if ctx is done first.
func Slow(ctx context.Context, d time.Duration) error {
	select {
	case <-time.After(d):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
