// Package safetynet holds code whose first rewrite does not type-check:
// the safety net leaves the sites at fault alone.
package safetynet

// Drain counts the values of a channel whose type is a type parameter:
// its operations cannot be weft's (a type parameter has only its
// constraint's methods), so the channel type it is instantiated with, and
// its caller's channel, stay Go's.
func Drain[C ~chan T, T any](c C) (n int) {
	for range c {
		n++
	}
	return n
}

// Count drains a channel of its own.
func Count() int {
	c := make(chan int, 2)
	c <- 1
	c <- 2
	close(c)
	return Drain(c)
}
