package record

import (
	"strings"
	"sync"

	"github.com/sasha-s/go-deadlock"
	"github.com/weftdev/weft/sched"
)

// With Options.LockOrder, sim's Mutex records with a
// github.com/sasha-s/go-deadlock mutex, which reports lock-order inversions (a potential deadlock, even one that did not
// happen in this run) on the goroutine taking the lock. go-deadlock is
// configured once, at the first recorded run: its reports go to the run of
// the goroutine that detects them, as the run's failure, instead of to
// stderr and os.Exit. Its lock-wait timeout is left off: it fires on a timer
// goroutine that belongs to no run, and a run whose goroutines wait forever
// is reported by the run's own watchdog, with every stack (Options.BlockTimeout).
var configureDeadlock = sync.OnceFunc(func() {
	deadlock.Opts.DeadlockTimeout = 0
	deadlock.Opts.LogBuf = deadlockLog{}
	deadlock.Opts.OnPotentialDeadlock = func() {
		t := Current()
		if t == nil {
			return
		}
		r := t.run
		r.mu.Lock()
		report := r.deadlockReport.String()
		r.deadlockReport.Reset()
		r.mu.Unlock()
		// The callback runs with go-deadlock's own lock held: the
		// goroutine must go on, so the failure is recorded and the lock
		// taken; if it deadlocks, the watchdog ends the run.
		t.Fail(&sched.Failure{Kind: sched.Deadlock, Goroutine: t.id,
			Message: "potential deadlock: " + firstLine(report), Site: userSite(report), Stack: report})
	}
})

// deadlockLog routes go-deadlock's report to the run of the goroutine
// writing it.
type deadlockLog struct{}

func (deadlockLog) Write(p []byte) (int, error) {
	if t := Current(); t != nil {
		t.run.mu.Lock()
		t.run.deadlockReport.Write(p)
		t.run.mu.Unlock()
	}
	return len(p), nil
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(s, "POTENTIAL DEADLOCK:")
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}
