// Package helpers is tested with helpers of every kind.
package helpers

// Double doubles n in another goroutine.
func Double(n int) int {
	c := make(chan int)
	go func() { c <- 2 * n }()
	return <-c
}
