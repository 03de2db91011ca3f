// Package leak leaks a goroutine blocked on a send nobody receives after a
// timeout.
package leak

import (
	"errors"
	"time"
)

// Fetch waits for slow at most timeout.
func Fetch(slow func() string, timeout time.Duration, room int) (string, error) {
	result := make(chan string, room)
	go func() { result <- slow() }()
	select {
	case v := <-result:
		return v, nil
	case <-time.After(timeout):
		return "", errors.New("timeout")
	}
}
