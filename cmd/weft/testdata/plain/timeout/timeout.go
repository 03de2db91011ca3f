// Package timeout races a result against time.After: the caller assumes
// the work always finishes within the timeout.
package timeout

import "time"

// Compute runs work and returns its result, or -1 after the timeout.
func Compute(work func() int, timeout time.Duration) int {
	done := make(chan int, 1)
	go func() { done <- work() }()
	select {
	case v := <-done:
		return v
	case <-time.After(timeout):
		return -1
	}
}
