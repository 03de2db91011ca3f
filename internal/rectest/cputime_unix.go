//go:build unix

package rectest

import (
	"syscall"
	"time"
)

// CPUTime returns the CPU time the process has used, user and system:
// benchmarks report it per operation (cpu-ns/op) beside the wall time,
// which a machine loaded by other work inflates far more.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
