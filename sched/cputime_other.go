//go:build !unix

package sched

import "time"

// cpuTime returns false: the CPU time of the process is read on Unix only.
func cpuTime() (time.Duration, bool) { return 0, false }
