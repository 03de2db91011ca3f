// Package errchan is reduced from sony/gobreaker's tests: errors travel
// over a channel, and the test hands every error it receives to fmt (as
// testify's assertions do). An error holds no channel, so the channel of
// errors stays weft's.
package errchan

import "errors"

var errOdd = errors.New("odd")

func Work(n int, out chan<- error) {
	for i := range n {
		var err error
		if i%2 == 1 {
			err = errOdd
		}
		out <- err
	}
}
