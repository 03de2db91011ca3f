package explore

import (
	"fmt"
	"time"

	"github.com/weftdev/weft/sched"
)

// MinimizeConfig bounds a minimization.
type MinimizeConfig struct {
	MaxRuns  int           // replays at most; 0 means 2000
	Duration time.Duration // wall time at most; 0 means one minute
	Options  sched.Options
}

// Minimized is the outcome of Minimize.
type Minimized struct {
	Result *sched.Result // the smallest failing execution found
	Before int           // preemptions of the original schedule
	After  int           // preemptions of Result's schedule
	Runs   int           // replays tried
}

// Minimize shrinks a failing execution's schedule to the fewest preemptions
// (switches away from a goroutine that could have continued), then the
// fewest choices, that still fail the same way: the same Failure.Signature.
//
// It is delta debugging over the choice list. Removing choices from a
// schedule makes the replay follow the default policy there (the running
// goroutine continues), so fewer choices mean fewer context switches. Each
// candidate is replayed; a candidate that fails the same way is kept in the
// form the replay actually took (its own choice list), which can only be
// smaller.
func Minimize(body func(), failing *sched.Result, cfg MinimizeConfig) Minimized {
	if cfg.MaxRuns <= 0 {
		cfg.MaxRuns = 2000
	}
	if cfg.Duration <= 0 {
		cfg.Duration = time.Minute
	}
	deadline := time.Now().Add(cfg.Duration)
	sig := failing.Failure.Signature()
	best := failing
	m := Minimized{Before: failing.Schedule.Preemptions()}
	budget := func() bool { return m.Runs < cfg.MaxRuns && time.Now().Before(deadline) }
	try := func(s sched.Schedule) bool {
		m.Runs++
		r := sched.Run(body, Replay(s), cfg.Options)
		if r.Failure == nil || r.Failure.Signature() != sig || !smaller(r.Schedule, best.Schedule) {
			return false
		}
		best = r
		return true
	}

	// A goroutine blocked outside weft's control costs a block timeout per
	// replay, and its schedule is not the cause: keep it as found.
	if len(best.Schedule) > 0 && failing.Failure.Kind != sched.Blocked && !try(nil) {
		chunk := max(len(best.Schedule)/2, 1)
		for budget() && len(best.Schedule) > 0 {
			removed := false
			for i := 0; i < len(best.Schedule) && budget(); {
				if try(without(best.Schedule, i, chunk)) {
					removed = true // try the same place again: the list shifted
					continue
				}
				i += chunk
			}
			if chunk == 1 && !removed {
				break
			}
			if !removed {
				chunk /= 2
			}
			chunk = max(min(chunk, len(best.Schedule)/2), 1)
		}
	}
	m.Result = best
	m.After = best.Schedule.Preemptions()
	return m
}

// smaller orders schedules by preemptions, then by length.
func smaller(a, b sched.Schedule) bool {
	pa, pb := a.Preemptions(), b.Preemptions()
	if pa != pb {
		return pa < pb
	}
	return len(a) < len(b)
}

func without(s sched.Schedule, i, n int) sched.Schedule {
	out := make(sched.Schedule, 0, len(s))
	out = append(out, s[:i]...)
	return append(out, s[min(i+n, len(s)):]...)
}

// Verify replays a schedule runs times and checks that every replay fails
// the same way with the same event hash as want: the test is deterministic
// under weft's control. It returns the last replay and, if some replay
// differed, what differed.
func Verify(body func(), s sched.Schedule, want *sched.Result, runs int, opts sched.Options) (*sched.Result, error) {
	var last *sched.Result
	for i := range runs {
		rp := Replay(s)
		last = sched.Run(body, rp, opts)
		if last.Hash != want.Hash || last.Failure.Signature() != want.Failure.Signature() {
			return last, fmt.Errorf("replay %d of %d differed: %s (event hash %#x) where the original gave %s (event hash %#x); the test depends on something weft does not control (map iteration order, real time, the global math/rand, a plain go statement, I/O)",
				i+1, runs, last.Failure.Summary(), last.Hash, want.Failure.Summary(), want.Hash)
		}
	}
	return last, nil
}
