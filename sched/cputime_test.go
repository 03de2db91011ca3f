//go:build unix

package sched

import (
	"testing"
	"time"
)

// A goroutine that ran without events for the hang limit in real time is
// stuck only once the process also used that much CPU time, or ran four
// times the limit: a computation starved by a loaded machine is given the
// CPU time it needs, a loop is not given more than that.
func TestRanTooLongCountsCPUTime(t *testing.T) {
	c := &Controller{opts: Options{BlockTimeout: DefaultBlockTimeout}}
	limit := DefaultBlockTimeout + HangSlack
	for _, tc := range []struct {
		name  string
		still time.Duration
		used  time.Duration // CPU time used since the last progress
		stuck bool
	}{
		{"short", limit - time.Millisecond, 2 * limit, false},
		{"starved", limit, limit / 4, false},
		{"starved long", 4*limit - time.Millisecond, limit / 4, false},
		{"starved too long", 4 * limit, 0, true},
		{"computing", limit, limit, true},
	} {
		now, ok := cpuTime()
		if !ok {
			t.Fatal("the process's CPU time cannot be read")
		}
		w := watcher{c: c, still: tc.still, cpu: now - tc.used, cpuKnown: true}
		if got := w.ranTooLong(); got != tc.stuck {
			t.Errorf("%s: stuck %v, want %v", tc.name, got, tc.stuck)
		}
	}
}
