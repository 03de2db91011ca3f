package workload

import (
	"flag"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/weftdev/weft/record"
	"github.com/weftdev/weft/replay"
	"github.com/weftdev/weft/sched"
)

var replayFailures = flag.Int("replayrate", 0, "measure each recorder's replay success rate over this many recorded failing runs of each buggy variant (TestReplayRate)")

// TestReplayRate measures, for each buggy variant and each recorder, how
// many recorded failing runs replay faithfully under the controller (every
// goroutine performs the recorded operations and reads the recorded
// values) with the same failure, and how long a replay takes:
//
//	go test -run ReplayRate -replayrate 50 -v ./internal/workload
//
// It also replays as many passing runs of each correct workload (at about
// 2000 events) and counts the faithful replays.
func TestReplayRate(t *testing.T) {
	if *replayFailures <= 0 {
		t.Skip("-replayrate not set")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	dir := t.TempDir()
	for _, w := range Correct(2000) {
		for _, alg := range record.Algorithms() {
			faithful := 0
			var firstProblem string
			for range *replayFailures {
				res := recordRun(t, alg, w.Body, dir)
				log := readLog(t, res)
				out, err := replay.Run(w.Body, log, replay.Options{Sched: sched.Options{MaxSteps: 1 << 22}})
				switch {
				case err != nil:
					firstProblem = err.Error()
				case out.Faithful && out.Result.Failure == nil:
					faithful++
				case firstProblem == "" && len(out.Problems) > 0:
					firstProblem = firstProblems(out.Problems)
				}
			}
			t.Logf("%-14s %-9s %d/%d passing runs replayed faithfully", w.Name, alg, faithful, *replayFailures)
			if firstProblem != "" {
				t.Logf("    first problem: %.300s", firstProblem)
			}
		}
	}
	for _, w := range Buggy() {
		for _, alg := range record.Algorithms() {
			var failing, runs, ok, faithful int
			var replayTime time.Duration
			var events uint64
			var firstProblem string
			for failing < *replayFailures && runs < 200*(*replayFailures) {
				runs++
				res := recordRun(t, alg, w.Body, dir)
				if res.Failure == nil {
					os.Remove(res.Log)
					continue
				}
				failing++
				events += res.Events
				log := readLog(t, res)
				start := time.Now()
				out, err := replay.Run(w.Body, log, replay.Options{Sched: sched.Options{MaxSteps: 1 << 22}})
				replayTime += time.Since(start)
				if err != nil {
					if firstProblem == "" {
						firstProblem = err.Error()
					}
					continue
				}
				got := out.Result.Failure
				same := got != nil && got.Kind == res.Failure.Kind && got.Message == res.Failure.Message
				if same {
					ok++
				}
				if out.Faithful {
					faithful++
				} else if firstProblem == "" && len(out.Problems) > 0 {
					firstProblem = firstProblems(out.Problems)
				}
			}
			if failing == 0 {
				t.Logf("%-14s %-9s no failing run in %d", w.Name, alg, runs)
				continue
			}
			t.Logf("%-14s %-9s reproduced %d/%d failing runs (%d faithful), %d events, replay %v/run (%d runs recorded)",
				w.Name, alg, ok, failing, faithful, events/uint64(failing), (replayTime / time.Duration(failing)).Round(time.Microsecond), runs)
			if firstProblem != "" {
				t.Logf("    first problem: %.300s", firstProblem)
			}
		}
	}
}
