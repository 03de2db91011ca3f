// Package instrapi is instrumented, and imported by a package that is
// not.
package instrapi

var events = make(chan int, 1)

// Events returns a channel with one value.
func Events() chan int {
	events <- 1
	return events
}

// Local is a channel only this package uses.
func Local() int {
	c := make(chan int, 1)
	c <- 2
	return <-c
}
