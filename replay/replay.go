// Package replay turns the log of a recorded run (package record) into an
// execution under the controller that reproduces it: each recorder's log
// is read by its own planner (one file per algorithm), which yields an
// Oracle telling, at every scheduling point, which goroutines' pending
// operations the log allows now. The controller enforces it through a
// sched.Strategy, so the replay is itself a controlled execution: its
// Result.Schedule is a schedule like any explored failure's, ready to be
// minimized and saved to the corpus.
//
// The guarantee is checked, not assumed: every goroutine of the replay must
// perform as many operations and read the same values (digests of them) as
// in the recorded run, and Outcome says where it did not.
package replay

import (
	"fmt"
	"sort"
	"strings"

	"github.com/weftdev/weft/record"
	"github.com/weftdev/weft/sched"
)

// An Access is a pending operation of a replayed goroutine, in the log's
// terms.
type Access struct {
	// Thread is the goroutine's index in the log (record.Log.Threads).
	Thread int
	// N is the operation's counter: the goroutine's N-th operation.
	N uint64
	// Loc is the log's location the operation touches, or 0 if it touches
	// none or is not known yet.
	Loc uint32
	// Kind is how the operation touches Loc.
	Kind sched.Access
	// Op names the operation ("Var.Load"), for messages.
	Op string
}

// String describes the access for messages.
func (a Access) String() string {
	return fmt.Sprintf("%s #%d of goroutine %d (location %d)", a.Op, a.N, a.Thread, a.Loc)
}

// An Oracle enforces one log's constraints during a replay.
type Oracle interface {
	// Allow reports whether a may be performed now.
	Allow(a Access) bool
	// Performed tells the oracle that a was performed.
	Performed(a Access)
}

// A Planner builds the Oracle of a log.
type Planner func(log *record.Log) (Oracle, error)

var planners = map[string]Planner{}

// register makes a planner available for logs of the named algorithm;
// planners call it from init.
func register(algorithm string, p Planner) { planners[algorithm] = p }

// Outcome is the result of a replay.
type Outcome struct {
	// Result is the controlled execution's.
	Result *sched.Result
	// Faithful reports that every goroutine performed the recorded number
	// of operations and read the recorded values, and that the oracle was
	// obeyed at every scheduling point.
	Faithful bool
	// Problems says where the replay departed from the recording.
	Problems []string
}

// Options configure a replay.
type Options struct {
	// Sched configures the controlled execution; Digests is always set.
	Sched sched.Options
}

// Run replays log with body, the recorded test's body.
func Run(body func(), log *record.Log, opts Options) (*Outcome, error) {
	if !log.Complete {
		return nil, fmt.Errorf("replay: the log of %s is incomplete (the run was abandoned): it cannot be replayed", orUnnamed(log.Name))
	}
	plan, ok := planners[log.Algorithm]
	if !ok {
		return nil, fmt.Errorf("replay: no replayer for %q logs", log.Algorithm)
	}
	oracle, err := plan(log)
	if err != nil {
		return nil, fmt.Errorf("replay: %s log: %w", log.Algorithm, err)
	}
	s := newStrategy(log, oracle)
	so := opts.Sched
	so.Digests = true
	res := sched.Run(body, s, so)
	out := &Outcome{Result: res, Problems: s.problems}
	out.Problems = append(out.Problems, compare(log, res)...)
	out.Faithful = len(out.Problems) == 0
	return out, nil
}

// compare checks the replay's goroutines against the log's: operations and
// values read.
func compare(log *record.Log, res *sched.Result) []string {
	var ps []string
	for _, t := range log.Threads {
		d, ok := res.Digests[t.ID]
		switch {
		case !ok:
			ps = append(ps, fmt.Sprintf("goroutine %s of the recording did not run", t.ID))
		case d.Ops != t.Ops:
			ps = append(ps, fmt.Sprintf("goroutine %s performed %d operations; the recording, %d", t.ID, d.Ops, t.Ops))
		case d.Reads != t.Reads.Reads || d.Hash != t.Reads.Hash:
			ps = append(ps, fmt.Sprintf("goroutine %s read other values than in the recording (%d reads, recorded %d)", t.ID, d.Reads, t.Reads.Reads))
		}
	}
	if len(res.Digests) > len(log.Threads) {
		var extra []string
		for id := range res.Digests {
			if !hasThread(log, id) {
				extra = append(extra, id)
			}
		}
		sort.Strings(extra)
		ps = append(ps, "goroutines not in the recording: "+strings.Join(extra, ", "))
	}
	return ps
}

func hasThread(log *record.Log, id string) bool {
	for _, t := range log.Threads {
		if t.ID == id {
			return true
		}
	}
	return false
}

func orUnnamed(s string) string {
	if s == "" {
		return "the run"
	}
	return s
}
