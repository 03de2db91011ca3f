// Package race tells the race detector about synchronization it cannot see,
// and hides from it the synchronization weft's own machinery performs. It
// wraps the race build's runtime annotations (runtime.RaceAcquire and
// friends); without the race tag every function is an empty one the
// compiler inlines away, and Enabled is false, so the annotations cost
// nothing.
//
// Under weft's controller the goroutines of an execution hand a baton to
// each other over channels: the race detector would see every handoff as
// synchronization, order every access after every other, and never report
// a race. So the controller hides its handoffs (Disable, Enable), and each
// primitive of package sim tells the race detector exactly the
// happens-before edges of the Go primitive it stands for (Acquire,
// Release, ReleaseMerge, and a Slot for a buffered channel's slots).
//
// Hiding the handoffs has a price: the state weft's machinery shares
// between the goroutines of an execution (the controller's, the
// primitives') is then written by goroutines the race detector sees as
// concurrent. Every function that writes such state is therefore marked
// //go:norace (its memory accesses are not instrumented; the directive has
// no effect without -race), and that state is never a Go map, never written
// with copy or append(s, t...) and never written by library code: the
// runtime instruments those whatever the caller. The strategy, whose state
// is anything its author chose, runs on a goroutine of its own instead
// (sched's adviser). go test -race ./... checks it: a missed write shows up
// as a race report in weft's own code.
package race
