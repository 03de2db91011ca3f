//go:build !windows
// +build !windows

package oldgo

// Plus has an old build constraint line.
func Plus() int {
	c := make(chan int, 1)
	c <- 1
	return <-c
}
