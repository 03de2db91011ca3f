// Package replay turns the log of a recorded run (package record) into an
// execution under the controller that reproduces it. It holds what every
// replay shares: each log is read by its algorithm's planner
// (record.Algorithm.Plan, in the algorithm's package), which yields a
// record.Oracle telling, at every scheduling point, which goroutines'
// pending operations the log allows now; the replay's strategy enforces it
// through the controller (sched.Strategy), so the replay is itself a
// controlled execution: its Result's Schedule is a schedule like any explored
// failure's, ready to be minimized and saved to the corpus.
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
	alg, ok := record.Lookup(log.Algorithm)
	if !ok {
		return nil, fmt.Errorf("replay: no replayer for %q logs (is its package, or record/all, imported?)", log.Algorithm)
	}
	oracle, err := alg.Plan(log)
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
