// Package ext is code weft does not instrument.
package ext

// Work sends on done.
func Work(done chan<- bool) { done <- true }
