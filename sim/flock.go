//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package sim

import (
	"syscall"

	"github.com/weftdev/weft/sched"
)

// opFlock is a try of a file lock, or its release.
var opFlock = sched.NewOp("Flock")

// Flock is syscall.Flock, and golang.org/x/sys/unix.Flock, the same
// system call: an advisory lock on an open file. Under control, a lock
// that would wait (LOCK_SH or LOCK_EX without LOCK_NB) is tried without
// waiting, and the goroutine polls between tries, as a TryLock loop does:
// the holder may be another goroutine of the execution (gofrs/flock's
// tests lock one file through two descriptors), which could not run while
// the kernel kept the waiter, the one weft runs, asleep; or a process or
// a goroutine weft does not control, which the poll waits for in real
// time when nothing else can progress, as for a Go channel (Blocked once
// that wait is spent). In plain mode it is the system call.
func Flock(fd int, how int) error {
	g, t := who()
	if g == nil {
		if t != nil {
			t.Op(nil)
		}
		return syscall.Flock(fd, how)
	}
	if how&syscall.LOCK_NB != 0 || how&(syscall.LOCK_SH|syscall.LOCK_EX) == 0 {
		g.StepReady(opFlock, 0)
		return syscall.Flock(fd, how)
	}
	for {
		g.StepReady(opFlock, 0)
		err := syscall.Flock(fd, how|syscall.LOCK_NB)
		if err != syscall.EWOULDBLOCK {
			return err
		}
		g.PolledOutside()
	}
}
