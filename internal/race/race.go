//go:build race

package race

import (
	"runtime"
	"unsafe"
)

// Enabled reports whether the program was built with the race detector.
const Enabled = true

// Acquire makes the calling goroutine happen after the Release (the last
// one) and ReleaseMerge calls on addr.
func Acquire(addr unsafe.Pointer) { runtime.RaceAcquire(addr) }

// Release stores the calling goroutine's happens-before state in addr: a
// later Acquire of addr happens after everything the goroutine did so far.
// It replaces what earlier Release calls stored.
func Release(addr unsafe.Pointer) { runtime.RaceRelease(addr) }

// ReleaseMerge is Release, but adds to what earlier calls stored instead
// of replacing it.
func ReleaseMerge(addr unsafe.Pointer) { runtime.RaceReleaseMerge(addr) }

// Read tells the race detector that the calling goroutine reads the byte
// at addr, as if the program had: a write by another goroutine that
// happens neither before nor after it is reported as a race.
func Read(addr unsafe.Pointer) { runtime.RaceRead(addr) }

// Write tells the race detector that the calling goroutine writes the
// byte at addr.
func Write(addr unsafe.Pointer) { runtime.RaceWrite(addr) }

// Disable hides the calling goroutine's synchronization (channel
// operations, locks, atomics, and Acquire and Release) from the race
// detector until Enable. Calls nest. Memory accesses are still checked.
func Disable() { runtime.RaceDisable() }

// Enable ends what Disable began.
func Enable() { runtime.RaceEnable() }

// Errors returns how many races the race detector has reported in the
// process so far.
func Errors() int { return runtime.RaceErrors() }
