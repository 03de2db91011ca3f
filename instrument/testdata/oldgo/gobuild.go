// A file with a go:build line.

//go:build !windows
// +build !windows

package oldgo

// Build has a build constraint line.
func Build() int {
	c := make(chan int, 1)
	c <- 2
	return <-c
}
