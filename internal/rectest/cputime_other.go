//go:build !unix

package rectest

import "time"

// CPUTime returns 0: the CPU time of the process is read on Unix only.
func CPUTime() time.Duration { return 0 }
