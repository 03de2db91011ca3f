// Package vetpos has a mistake go test's vet finds, in a file weft
// rewrites: the report names the file and line of the original.
package vetpos

import "fmt"

// Show prints a value received from a channel, with the wrong verb.
func Show() {
	c := make(chan string, 1)
	c <- "x"
	fmt.Printf("%d\n", <-c)
}
