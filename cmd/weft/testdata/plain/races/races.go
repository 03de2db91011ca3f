// Package races holds, for each synchronization primitive, a program
// written with plain Go that it synchronizes correctly (TestSync...) and the
// same program without the happens-before edge it needs (TestRace...): under
// weft test -race, each racy one is found as a data race, and no
// synchronized one ever is.
package races

// Read uses v, so that the compiler keeps the load of the variable read.
//
//go:noinline
func Read(v int) int {
	if v < 0 {
		panic("negative")
	}
	return v
}
