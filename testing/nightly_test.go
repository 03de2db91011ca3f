package weft_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/pprof/profile"
	"github.com/weftdev/weft/corpus"
	"github.com/weftdev/weft/report"
)

// readReport reads a -explore.json report.
func readReport(t *testing.T, path string) *report.Run {
	t.Helper()
	r, err := report.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// testOf returns the report of test name.
func testOf(t *testing.T, r *report.Run, name string) report.Test {
	t.Helper()
	for _, rt := range r.Tests {
		if rt.Test == name {
			return rt
		}
	}
	t.Fatalf("no test %s in the report: %+v", name, r.Tests)
	return report.Test{}
}

// A continued exploration saves each distinct failure once, with its
// timeline, and reports the run as JSON and as a profile.
func TestGoTestContinue(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test")
	}
	// Not in parallel: its go test runs would starve the timed checks of
	// the parallel tests (TestBlockingOutsideTheControllerIsReported).
	dir := gotestModule(t)
	out := t.TempDir()
	js, html, prof := filepath.Join(out, "run.json"), filepath.Join(out, "html"), filepath.Join(out, "prof.pb.gz")
	ok, log := goTest(t, dir, "./nightly", "-explore", "-explore.continue", "-explore.iters", "600", "-explore.seed", "3",
		"-explore.workers", "2", "-explore.json="+js, "-explore.html="+html, "-explore.profile="+prof)
	if ok {
		t.Fatalf("go test passed:\n%s", log)
	}
	r := readReport(t, js)
	bugs := testOf(t, r, "TestTwoBugs")
	if bugs.Executions != 600 || bugs.Dir != "./nightly" || bugs.Package != "example.com/gotest/nightly" || bugs.BudgetExecutions != 600 {
		t.Errorf("report %+v", bugs)
	}
	if len(bugs.Failures) < 2 || bugs.Saved != len(bugs.Failures) {
		t.Fatalf("%d failures, %d saved:\n%s", len(bugs.Failures), bugs.Saved, log)
	}
	sigs := map[string]bool{}
	for _, f := range bugs.Failures {
		if sigs[f.Signature] {
			t.Errorf("signature %s reported twice", f.Signature)
		}
		sigs[f.Signature] = true
		e, err := corpus.Read(filepath.Join(dir, f.Corpus))
		if err != nil || e.Signature != f.Signature {
			t.Errorf("%s: %v (%+v)", f.Corpus, err, e)
		}
		if !strings.HasPrefix(f.Replay, "go test -run '^TestTwoBugs$/^") || !strings.Contains(log, "timeline: file://"+f.HTML) {
			t.Errorf("failure %+v: no replay command, or its timeline is not linked in the log", f)
		}
		if page, err := os.ReadFile(f.HTML); err != nil || !strings.Contains(string(page), "goroutine 0.1") {
			t.Errorf("timeline %s: %v", f.HTML, err)
		}
	}
	entries, err := corpus.List(filepath.Join(dir, "nightly", "testdata", "weft", "TestTwoBugs"))
	if err != nil || len(entries) != len(bugs.Failures) {
		t.Errorf("%d entries saved for %d failures (%v)", len(entries), len(bugs.Failures), err)
	}
	if nobug := testOf(t, r, "TestNoBug"); len(nobug.Failures) != 0 || nobug.Executions != 600 {
		t.Errorf("TestNoBug: %+v", nobug)
	}
	f, err := os.Open(prof)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	var events, preemptions int64
	tests := map[string]bool{}
	for _, s := range p.Sample {
		events += s.Value[0]
		preemptions += s.Value[1]
		tests[s.Label["test"][0]] = true
	}
	if events == 0 || !tests["TestTwoBugs"] || !tests["TestNoBug"] {
		t.Errorf("profile: %d events, tests %v", events, tests)
	}

	// Run again, the saved failures are known: nothing new is saved.
	os.Remove(js)
	goTest(t, dir, "./nightly", "-run", "TestTwoBugs", "-explore", "-explore.continue", "-explore.iters", "600",
		"-explore.seed", "3", "-explore.json="+js)
	again := testOf(t, readReport(t, js), "TestTwoBugs")
	if len(again.Known) != len(bugs.Failures) || len(again.Failures) != 0 {
		t.Errorf("second run: known %q, found %+v", again.Known, again.Failures)
	}
}

// Shards split an iteration budget, and each reports its part.
func TestGoTestShards(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test")
	}
	// Not in parallel: its go test runs would starve the timed checks of
	// the parallel tests (TestBlockingOutsideTheControllerIsReported).
	dir := gotestModule(t)
	total := 0
	for i, shard := range []string{"0/3", "1/3", "2/3"} {
		js := filepath.Join(t.TempDir(), "run.json")
		goTest(t, dir, "./nightly", "-run", "TestNoBug", "-explore", "-explore.iters", "100", "-explore.shard="+shard, "-explore.json="+js)
		r := readReport(t, js)
		if r.Shard == nil || r.Shard.Index != i || r.Shard.Count != 3 {
			t.Errorf("shard %s: report's shard %+v", shard, r.Shard)
		}
		total += testOf(t, r, "TestNoBug").Executions
	}
	if total != 100 {
		t.Errorf("the shards ran %d executions of 100", total)
	}
	if ok, out := goTest(t, dir, "./nightly", "-run", "TestNoBug", "-explore", "-explore.shard=3/3"); ok || !strings.Contains(out, "want I/N with 0 ≤ I < N") {
		t.Errorf("-explore.shard=3/3:\n%s", out)
	}
}

// SIGINT ends a run cleanly: the failures found are saved and listed, and
// the report says it was interrupted.
func TestGoTestInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test")
	}
	// Not in parallel: its go test runs would starve the timed checks of
	// the parallel tests (TestBlockingOutsideTheControllerIsReported).
	dir := gotestModule(t)
	bin := filepath.Join(t.TempDir(), "nightly.test")
	build := exec.Command("go", "test", "-c", "-o", bin, "./nightly")
	build.Dir, build.Env = dir, append(os.Environ(), "GOFLAGS=-mod=mod")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go test -c: %v\n%s", err, out)
	}
	js := filepath.Join(t.TempDir(), "run.json")
	cmd := exec.Command(bin, "-test.run=TestTwoBugs", "-explore", "-explore.continue", "-explore.time=1h", "-explore.workers=2",
		"-explore.json="+js, "-test.v")
	cmd.Dir = filepath.Join(dir, "nightly")
	var log strings.Builder
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Once a failure is saved, and more time passes, interrupt.
	saved := filepath.Join(dir, "nightly", "testdata", "weft", "TestTwoBugs")
	for {
		if entries, _ := corpus.List(saved); len(entries) > 0 {
			break
		}
		if cmd.ProcessState != nil {
			t.Fatalf("the run ended:\n%s", log.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond)
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	if _, failed := err.(*exec.ExitError); !failed {
		t.Fatalf("the interrupted run: %v\n%s", err, log.String())
	}
	r := readReport(t, js)
	bugs := testOf(t, r, "TestTwoBugs")
	if !r.Interrupted || !bugs.Interrupted || len(bugs.Failures) == 0 {
		t.Fatalf("report %+v\n%s", r, log.String())
	}
	entries, err := corpus.List(saved)
	if err != nil || len(entries) != bugs.Saved || bugs.Saved != len(bugs.Failures) {
		t.Errorf("%d saved, %d reported, %d failures (%v)", len(entries), bugs.Saved, len(bugs.Failures), err)
	}
	for _, f := range bugs.Failures {
		if !strings.Contains(log.String(), "saved: testdata/weft/TestTwoBugs/"+filepath.Base(f.Corpus)) {
			t.Errorf("%s is not listed in the log", f.Corpus)
		}
	}
	if !strings.Contains(log.String(), "interrupted (SIGINT or SIGTERM) after") {
		t.Errorf("the log does not say the run was interrupted:\n%s", log.String())
	}
}
