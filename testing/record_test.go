package weft_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weftdev/weft/corpus"
	"github.com/weftdev/weft/internal/workload"
	"github.com/weftdev/weft/record"
	"github.com/weftdev/weft/sched"
	weft "github.com/weftdev/weft/testing"
)

// flakyCounter loses an update when its two goroutines interleave their
// atomic load and store (workload.Counter's buggy variant): under the Go
// scheduler, in some runs only. The fixed twin adds atomically.
func flakyCounter(fixed bool) func(*weft.T) {
	body := workload.Counter(workload.CounterParams{Workers: 2, Size: 200, Buggy: !fixed})
	return func(*weft.T) { body() }
}

// TestRecordedFailureBecomesACorpusEntry is -record's user story, for each
// recorder: free runs until one fails, its log replayed under the
// controller, the schedule minimized and saved; the saved entry then fails
// the same way 100 times in a row, and the fixed twin passes along it.
func TestRecordedFailureBecomesACorpusEntry(t *testing.T) {
	for _, algorithm := range record.Algorithms() {
		t.Run(algorithm, func(t *testing.T) {
			t.Parallel()
			buggy := flakyCounter(false)
			dir, logs := t.TempDir(), t.TempDir()
			f, err := weft.RecordRuns(buggy, weft.RecordWith(algorithm), weft.Runs(3000), weft.LogDir(logs), weft.Name("TestFlaky"))
			if err != nil {
				t.Fatal(err)
			}
			if f == nil {
				t.Skip("no recorded run failed in 3000")
			}
			if f.Entry == nil {
				t.Fatalf("the replayed failure does not replay identically: %v", f.Nondeterminism)
			}
			rc := f.Recorded
			if rc == nil || rc.Algorithm != algorithm || rc.Failure.Kind != sched.Panic || !strings.HasPrefix(rc.Failure.Message, "counter: ") {
				t.Fatalf("recording %+v", rc)
			}
			if !rc.Faithful {
				t.Errorf("the replay departed from the recording: %v", rc.Problems)
			}
			if _, err := record.ReadFile(rc.Log); err != nil {
				t.Errorf("the kept log: %v", err)
			}
			// The replay reproduces the recorded failure exactly;
			// minimization keeps its signature.
			if got := f.Found.Result.Failure; got.Kind != sched.Panic || got.Message != rc.Failure.Message {
				t.Errorf("the replay failed with %v, the recording with %v", got.Summary(), rc.Failure.Summary())
			}
			if f.Failure.Signature() != f.Found.Result.Failure.Signature() {
				t.Errorf("minimized to %v from %v", f.Failure.Summary(), f.Found.Result.Failure.Summary())
			}
			if f.Entry.Found.Strategy != "record-"+algorithm {
				t.Errorf("entry found by %q", f.Entry.Found.Strategy)
			}
			path, err := corpus.Write(dir, f.Entry)
			if err != nil {
				t.Fatal(err)
			}
			e, err := corpus.Read(path)
			if err != nil {
				t.Fatal(err)
			}
			var hash uint64
			for i := range 100 {
				r, _, err := weft.Follow(buggy, e.Schedule)
				if err != nil {
					t.Fatal(err)
				}
				if r.Failure == nil || r.Failure.Message != f.Failure.Message {
					t.Fatalf("replay %d of the saved entry: %v", i, r.Failure)
				}
				if i > 0 && r.Hash != hash {
					t.Fatalf("replay %d: hash %#x, then %#x", i, hash, r.Hash)
				}
				hash = r.Hash
			}
			r, _, err := weft.Follow(flakyCounter(true), e.Schedule)
			if err != nil || r.Failure != nil {
				t.Errorf("the fixed twin along the saved entry: %v %v", r.Failure, err)
			}
			if _, err := os.Stat(filepath.Join(logs, "TestFlaky-run"+itoa(rc.Run)+".log")); err != nil {
				t.Errorf("log not kept: %v", err)
			}
		})
	}
}

func TestRecordRunsRejectsAnUnknownRecorder(t *testing.T) {
	_, err := weft.RecordRuns(flakyCounter(true), weft.RecordWith("lamport"))
	if err == nil || !strings.Contains(err.Error(), `unknown recorder "lamport"`) || !strings.Contains(err.Error(), "light") {
		t.Errorf("error %v", err)
	}
}

func TestRecordRunsPassingRuns(t *testing.T) {
	f, err := weft.RecordRuns(flakyCounter(true), weft.Runs(20))
	if err != nil || f != nil {
		t.Errorf("finding %v, error %v", f, err)
	}
}

// TestRecordFlagTarget is run by TestRecordFlag in a child test binary,
// with -record and the corpus directory in WEFT_RECORD_CORPUS.
func TestRecordFlagTarget(t *testing.T) {
	dir := os.Getenv("WEFT_RECORD_CORPUS")
	if dir == "" {
		t.Skip("run by TestRecordFlag")
	}
	weft.Check(t, flakyCounter(os.Getenv("WEFT_RECORD_FIXED") != ""), weft.CorpusDir(dir))
}

// TestRecordFlag runs go test's -record flags for real, in a child test
// binary: the recorded failure is saved, plain go test then replays the
// saved entry and fails, and passes once the bug is fixed.
func TestRecordFlag(t *testing.T) {
	if testing.Short() {
		t.Skip("runs child test binaries")
	}
	t.Parallel()
	dir, logs := t.TempDir(), t.TempDir()
	child := func(fixed bool, args ...string) (string, bool) {
		cmd := exec.Command(os.Args[0], append([]string{"-test.run=^TestRecordFlagTarget$", "-test.v"}, args...)...)
		cmd.Env = append(os.Environ(), "WEFT_RECORD_CORPUS="+dir)
		if fixed {
			cmd.Env = append(cmd.Env, "WEFT_RECORD_FIXED=1")
		}
		out, err := cmd.CombinedOutput()
		return string(out), err == nil
	}
	out, ok := child(false, "-record=light", "-record.runs=5000", "-record.log="+logs)
	if ok {
		if strings.Contains(out, "no failure in") {
			t.Skipf("no recorded run failed:\n%s", out)
		}
		t.Fatalf("-record passed:\n%s", out)
	}
	for _, want := range []string{"--- FAIL: TestRecordFlagTarget/record", "failed under the Go scheduler (recorder light", "every goroutine read the recorded values", "saved: ", "log: " + logs} {
		if !strings.Contains(out, want) {
			t.Errorf("-record output lacks %q:\n%s", want, out)
		}
	}
	files, err := corpus.List(dir)
	if err != nil || len(files) != 1 {
		t.Fatalf("corpus: %v %v", files, err)
	}
	out, ok = child(false)
	if ok || !strings.Contains(out, "the saved schedule") || !strings.Contains(out, "counter: ") {
		t.Errorf("plain go test with the saved entry:\n%s", out)
	}
	if out, ok := child(true); !ok {
		t.Errorf("the fixed twin with the saved entry:\n%s", out)
	}
	if out, ok := child(false, "-record=lamport"); ok || !strings.Contains(out, `unknown recorder "lamport"`) {
		t.Errorf("an unknown recorder:\n%s", out)
	}
}
