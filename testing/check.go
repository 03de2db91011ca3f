package weft

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/weftdev/weft/corpus"
	"github.com/weftdev/weft/internal/race"
	"github.com/weftdev/weft/sched"
)

// Check runs body under weft's schedule controller.
//
// First it replays every schedule saved for the test under
// testdata/weft/<TestName>/ as a subtest named by the entry's id: the
// subtest fails if the execution fails, so a saved schedule is a regression
// test that passes once the bug is fixed. Then, in a subtest named explore,
// it explores: with -explore until a failure or the budget ends, otherwise a
// small exploration (Iterations, default 100) with seeds derived from the
// test's name, deterministic from run to run.
//
// A failing execution is minimized, verified, saved and reported: the
// failure, a timeline around each preemption, the preemption count before
// and after minimization, the saved path, and the command that replays it.
func Check(t *testing.T, body func(*T), opts ...Option) {
	t.Helper()
	cfg, err := newConfig(t.Name(), opts, true)
	if err != nil {
		t.Fatal(err)
	}
	index := checkIndex(t)
	if inWorker(t, body, cfg, index) {
		return
	}
	files, err := corpus.List(cfg.dir)
	if err != nil {
		t.Fatalf("weft: %v", err)
	}
	corpusFails := false
	for _, f := range files {
		ok := t.Run(f.ID, func(t *testing.T) {
			t.Helper()
			if f.Err != nil {
				t.Fatalf("weft: malformed corpus entry: %v", f.Err)
			}
			replayEntry(t, body, cfg.in(t), f)
		})
		// A malformed file is reported, but is no saved failure.
		corpusFails = corpusFails || (!ok && f.Err == nil)
	}
	if cfg.inline {
		// An instrumented test explores in the test itself, so that
		// go test -run TestX/sub selects the test's own subtests (TB.Run),
		// unless the pattern names a saved schedule.
		if corpusFails {
			t.Log("weft: a saved schedule fails; fix that first")
		} else if !selectsEntry(files) {
			cfg := cfg.in(t)
			if cfg.recorder != "" {
				recordTest(t, body, cfg)
			}
			if cfg.recorder == "" || cfg.explore {
				cfg.spawn = spawner(t, index, cfg)
				exploreTest(t, body, cfg)
			}
		}
		return
	}
	if cfg.recorder != "" {
		t.Run("record", func(t *testing.T) {
			t.Helper()
			if corpusFails {
				t.Skip("weft: a saved schedule fails; fix that first")
			}
			recordTest(t, body, cfg.in(t))
		})
		if !cfg.explore {
			return
		}
	}
	parent := t
	t.Run("explore", func(t *testing.T) {
		t.Helper()
		if corpusFails {
			// As go test -fuzz does when its seed corpus fails: the saved
			// failures come first, and exploring would find them again.
			t.Skip("weft: a saved schedule fails; fix that first")
		}
		cfg := cfg.in(t)
		cfg.spawn = spawner(parent, index, cfg)
		exploreTest(t, body, cfg)
	})
}

// in returns the configuration for executions whose subtests show under
// test t.
func (c *config) in(t *testing.T) *config {
	d := *c
	d.sel = flagSelection(t.Name())
	return &d
}

// selectsEntry reports whether go test's -run pattern selects one of the
// saved schedules by its id, below the test's own name.
func selectsEntry(files []corpus.File) bool {
	f := flag.Lookup("test.run")
	if f == nil {
		return false
	}
	pats := splitPattern(f.Value.String())
	if len(pats) < 2 {
		return false
	}
	for _, file := range files {
		if ok, err := regexp.MatchString(pats[1], file.ID); err == nil && ok {
			return true
		}
	}
	return false
}

func replayEntry(t *testing.T, body func(*T), cfg *config, f corpus.File) {
	t.Helper()
	r, drift, last := replay(body, f.Entry.Schedule, cfg)
	for _, d := range drift {
		t.Logf("weft: drift: %s", d)
	}
	if last != nil {
		show(t, last.out, r.Failure != nil)
	}
	if r.Failure == nil {
		if savedKind(f.Entry) == sched.Race && !race.Enabled {
			t.Skipf("weft: %s was saved for a data race (%s); only the race detector reports it: replay it with %s -race",
				f.Path, f.Entry.Failure, cfg.command)
		}
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "weft: the saved schedule %s fails\n", f.Path)
	writeFailure(&b, r.Failure, r.More)
	if f.Entry.Signature != "" && f.Entry.Signature != r.Failure.Signature() {
		fmt.Fprintf(&b, "  (saved as: %s)\n", f.Entry.Failure)
	}
	writeTimeline(&b, r)
	t.Error(strings.TrimRight(b.String(), "\n"))
}

func exploreTest(t *testing.T, body func(*T), cfg *config) {
	t.Helper()
	var progress func(time.Duration, int)
	if cfg.explore {
		progress = func(elapsed time.Duration, n int) {
			fmt.Printf("weft: %s: elapsed: %v, execs: %d (%.0f/sec)\n", cfg.name, elapsed.Round(time.Second), n, float64(n)/elapsed.Seconds())
		}
	}
	start := time.Now()
	x, err := find(body, cfg, progress)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range x.notes {
		t.Logf("weft: %s", n)
	}
	if len(x.kept) > 0 {
		t.Log(keptRunning(x.kept))
	}
	for _, l := range x.lost {
		if x.finding == nil || x.finding.Crash == nil || !strings.Contains(l, x.finding.Crash.Output) {
			t.Logf("weft: %s", strings.TrimRight(l, "\n"))
		}
	}
	if x.finding == nil {
		show(t, x.first, false)
		if cfg.explore {
			t.Logf("weft: no failure in %d executions, %s (strategy %s, seed %#x, %s)",
				x.executions, time.Since(start).Round(time.Millisecond), cfg.strategy, cfg.seed, workersOf(cfg, len(x.lost)))
		}
		return
	}
	saveAndReport(t, x.finding, cfg)
}

// workersOf describes where the executions of an exploration ran, lost
// of its worker processes having died or not started (their executions
// ran in the test process).
func workersOf(cfg *config, lost int) string {
	n := cfg.exploreWorkers()
	switch {
	case cfg.spawn == nil:
		return "in the test process"
	case lost > 0:
		return fmt.Sprintf("%d worker processes, %d lost: their executions ran in the test process", n, lost)
	}
	return fmt.Sprintf("%d worker processes", n)
}

// saveAndReport saves a Finding to the test's corpus, unless it does not
// replay identically, and fails the test with its report.
func saveAndReport(t *testing.T, f *Finding, cfg *config) {
	t.Helper()
	if f.Entry == nil {
		t.Error(strings.TrimRight(report(f, cfg, "", nil), "\n"))
		return
	}
	show(t, f.out, true)
	path, werr := corpus.Write(cfg.dir, f.Entry)
	t.Error(strings.TrimRight(report(f, cfg, path, werr), "\n"))
}

// savedKind returns the kind of failure e was saved for; 0 if its
// signature does not say.
func savedKind(e *corpus.Entry) sched.FailureKind {
	name, _, _ := strings.Cut(e.Signature, " ")
	k, _ := sched.ParseFailureKind(name)
	return k
}

// replayCommand is the go test command that replays a saved entry: its
// subtest, in the current package.
func replayCommand(command, testName, id string) string {
	return runCommand(command, testName+"/"+id)
}

// packageDir returns the current directory (go test runs a package's tests
// in its directory) relative to the module root, as a go test argument.
func packageDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			rel, err := filepath.Rel(dir, wd)
			if err != nil || rel == "." {
				return "."
			}
			return "./" + filepath.ToSlash(rel)
		}
		if filepath.Dir(dir) == dir {
			return "."
		}
	}
}
