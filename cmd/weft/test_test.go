package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/weftdev/weft/corpus"
)

// plainModule copies testdata/plain, packages written with plain Go only,
// into a scratch module that does not require weft: weft test sets itself
// up.
func plainModule(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/plain\n\ngo 1.22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(dir, os.DirFS("testdata/plain")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// The kind of failure weft reports for each package's TestBug.
var plainBugs = map[string]string{
	"counter":    "error",
	"abba":       "deadlock",
	"wakeup":     "deadlock",
	"closed":     "panic",
	"leak":       "leak",
	"order":      "panic",
	"timeout":    "error",
	"ctxleak":    "leak",
	"constructs": "error",
	"timing":     "error",
	"tune":       "timeout",
	"maporder":   "error",
	"loopnet":    "error",
}

// TestWeftTest explores packages written with plain Go through weft test:
// each bug is found and saved, the saved schedule replays it, the fixed
// twin passes, and plain go test of the same packages still works.
func TestWeftTest(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test several times")
	}
	dir := plainModule(t)
	run := weftTestIn(t, dir)

	if code, out := run("-run", "TestFixed", "./..."); code != 0 {
		t.Fatalf("weft test of the fixed twins failed:\n%s", out)
	}
	// Subtests are selected as go test selects them.
	if code, out := run("-run", "TestSub/good", "./subtests"); code != 0 {
		t.Errorf("weft test -run TestSub/good ran the failing subtest:\n%s", out)
	}
	if code, out := run("-run", "TestSub/bad", "./subtests"); code == 0 || !strings.Contains(out, "always fails") {
		t.Errorf("weft test -run TestSub/bad did not fail:\n%s", out)
	}
	// Parallel subtests run together, as under go test (with two slots,
	// which the default of one CPU would not give them).
	if code, out := run("-parallel", "2", "-run", "TestParallel", "./subtests"); code != 0 {
		t.Errorf("weft test -run TestParallel failed:\n%s", out)
	}
	code, out := run("-run", "TestBug", "./...")
	if code == 0 {
		t.Fatalf("weft test found no bug:\n%s", out)
	}
	for pkg, kind := range plainBugs {
		entries, err := corpus.List(filepath.Join(dir, pkg, "testdata", "weft", "TestBug"))
		if err != nil || len(entries) != 1 || entries[0].Err != nil {
			t.Errorf("%s: want one saved schedule, got %v (%v)\n%s", pkg, entries, err, out)
			continue
		}
		if got := strings.Fields(entries[0].Entry.Failure)[0]; got != kind && got != kind+":" {
			t.Errorf("%s: found %q, want a %s", pkg, entries[0].Entry.Failure, kind)
		}
	}
	if !regexp.MustCompile(`replay: weft test -run '\^TestBug\$/\^[0-9a-f]{16}\$' \./counter`).MatchString(out) {
		t.Errorf("no replay command in the report:\n%s", out)
	}
	// The report names the user's own files and lines.
	if !strings.Contains(out, "counter.go:") || strings.Contains(out, "weftsim") {
		t.Errorf("the report does not point at the original source:\n%s", out)
	}

	// Plain go test replays nothing of weft's and passes the fixed twins.
	cmd := exec.Command("go", "test", "-run", "TestFixed", "./...")
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("plain go test: %v\n%s", err, b)
	}

	// The saved schedules replay the bugs.
	code, out = run("-run", "TestBug/[0-9a-f]{16}", "./...")
	if code == 0 || strings.Count(out, "the saved schedule") != len(plainBugs) {
		t.Fatalf("the saved schedules do not all fail:\n%s", out)
	}
	checkMapOrder(t, dir, run)
}

// TestWeftTestParallel: weft test runs parallel subtests under go test's
// -parallel limit. With 4 slots the parallel fixtures pass; with one,
// TestMeet's subtests, which meet, deadlock (go test hangs), and
// TestBatch's four keys come in more than one batch (go test fails it
// too): both are found, saved with their limit, and replayed under it
// whatever -parallel says; TestFixedParallel passes.
func TestWeftTestParallel(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test several times")
	}
	dir := plainModule(t)
	run := weftTestIn(t, dir)
	if code, out := run("-parallel", "4", "-run", "TestMeet|TestBatch|TestFixedParallel", "./parallel"); code != 0 {
		t.Fatalf("weft test -parallel 4 failed:\n%s", out)
	}
	if code, out := run("-parallel", "1", "-run", "TestFixedParallel", "./parallel"); code != 0 {
		t.Fatalf("weft test -parallel 1 failed the correct test:\n%s", out)
	}
	code, out := run("-parallel", "1", "-run", "TestMeet|TestBatch", "./parallel")
	if code == 0 {
		t.Fatalf("weft test -parallel 1 found no bug:\n%s", out)
	}
	for test, kind := range map[string]string{"TestMeet": "deadlock:", "TestBatch": "error"} {
		entries, err := corpus.List(filepath.Join(dir, "parallel", "testdata", "weft", test))
		if err != nil || len(entries) != 1 || entries[0].Err != nil {
			t.Fatalf("%s: want one saved schedule, got %v (%v)\n%s", test, entries, err, out)
		}
		if got := strings.Fields(entries[0].Entry.Failure)[0]; got != kind {
			t.Errorf("%s: found %q, want a %s", test, entries[0].Entry.Failure, kind)
		}
		if entries[0].Entry.Parallel != 1 {
			t.Errorf("%s: saved with -parallel %d, want 1", test, entries[0].Entry.Parallel)
		}
	}
	code, out = run("-parallel", "4", "-run", "Test(Meet|Batch)/[0-9a-f]{16}", "./parallel")
	if code == 0 || strings.Count(out, "the saved schedule") != 2 {
		t.Fatalf("the saved schedules do not both fail:\n%s", out)
	}
	// Plain go test fails TestBatch under -parallel 1 too.
	cmd := exec.Command("go", "test", "-count=1", "-parallel", "1", "-run", "TestBatch", "./parallel")
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(b), "want one") {
		t.Errorf("plain go test -parallel 1 passed TestBatch (%v):\n%s", err, b)
	}
}

// checkMapOrder checks maporder's saved schedule, whose failure depends on
// the order of a range over a map: the order is a choice of the schedule,
// and the schedule replays the failure every time.
func checkMapOrder(t *testing.T, dir string, run func(args ...string) (int, string)) {
	t.Helper()
	entries, err := corpus.List(filepath.Join(dir, "maporder", "testdata", "weft", "TestBug"))
	if err != nil || len(entries) != 1 || entries[0].Err != nil {
		t.Fatalf("maporder: want one saved schedule, got %v (%v)", entries, err)
	}
	e := entries[0].Entry
	picked := false
	for _, c := range e.Schedule {
		picked = picked || c.Op == "MapRange"
	}
	if !picked {
		t.Errorf("maporder: the saved schedule chooses no map order: %+v", e.Schedule)
	}
	for range 3 {
		code, out := run("-run", "TestBug/[0-9a-f]{16}", "./maporder")
		if code == 0 || !strings.Contains(out, "failure: "+e.Failure) {
			t.Fatalf("maporder: the saved schedule did not replay %q:\n%s", e.Failure, out)
		}
	}
}

// TestTestEnvKeepsTheUserGoEnv checks that weft test's go test gets the
// workspace's GOWORK, and the user's GOWORK and GOFLAGS for the test's
// process to take back (weft's testing package, restoreGoEnv).
func TestTestEnvKeepsTheUserGoEnv(t *testing.T) {
	env := testEnv([]string{"HOME=/h", "GOWORK=off", "GOFLAGS=-mod=mod -tags=a"}, "/c/run.work")
	want := map[string]bool{"GOWORK=/c/run.work": true, "WEFT_USER_GOWORK=off": true,
		"WEFT_USER_GOFLAGS=-mod=mod -tags=a": true, "WEFT_COMMAND=weft test": true}
	for _, kv := range env {
		delete(want, kv)
	}
	if len(want) > 0 {
		t.Errorf("testEnv = %q, missing %v", env, want)
	}
}

// weftTestIn returns a function that runs weft test with args in dir and
// returns its exit code and output; an error running it fails t.
func weftTestIn(t *testing.T, dir string) func(args ...string) (int, string) {
	return func(args ...string) (int, string) {
		var out strings.Builder
		code, err := runTest(dir, args, &out, &out)
		if err != nil {
			t.Fatalf("weft test %v: %v\n%s", args, err, out.String())
		}
		return code, out.String()
	}
}

// TestWeftTestGoesOnPastABuildFailure runs testdata/buildfail, where one
// package's tests do not build: weft test, like go test, reports that
// package's build failure and runs the other's tests. Before, it stopped
// at the load, no test run (samber/lo).
func TestWeftTestGoesOnPastABuildFailure(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/buildfail\n\ngo 1.22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(dir, os.DirFS("testdata/buildfail")); err != nil {
		t.Fatal(err)
	}
	code, out := weftTestIn(t, dir)("-count=1", "./...")
	if code == 0 || !strings.Contains(out, "example.com/buildfail/bad [build failed]") ||
		!strings.Contains(out, "undefined: undefinedName") || !regexp.MustCompile(`ok\s+example.com/buildfail/good`).MatchString(out) {
		t.Fatalf("weft test ./...: exit %d, want bad's build failure and good's pass:\n%s", code, out)
	}
}
