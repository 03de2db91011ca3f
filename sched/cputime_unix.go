//go:build unix

package sched

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time the process has used, user and system;
// false if it cannot be read.
func cpuTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
