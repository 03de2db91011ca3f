package weft_test

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/weftdev/weft/sim"
	weft "github.com/weftdev/weft/testing"
)

// gotestModule copies testdata/gotest, packages whose tests use weft, into
// a scratch module that uses this checkout of weft.
func gotestModule(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	gomod := "module example.com/gotest\n\ngo 1.26\n\nrequire github.com/weftdev/weft v0.0.0\n\nreplace github.com/weftdev/weft => " + root + "\n"
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, _ := os.ReadFile(filepath.Join(root, "go.sum"))
	if err := os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(dir, os.DirFS("testdata/gotest")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// goTest runs go test in dir and returns whether it passed and what it
// printed.
func goTest(t *testing.T, dir string, args ...string) (bool, string) {
	t.Helper()
	return goTestEnv(t, dir, nil, args...)
}

// goTestEnv is goTest with env added to the environment.
func goTestEnv(t *testing.T, dir string, env []string, args ...string) (bool, string) {
	t.Helper()
	cmd := exec.Command("go", append([]string{"test", "-count=1"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "GOFLAGS=-mod=mod"), env...)
	out, err := cmd.CombinedOutput()
	if _, exit := err.(*exec.ExitError); err != nil && !exit {
		t.Fatalf("go test %v: %v", args, err)
	}
	return err == nil, string(out)
}

// TestGoTest runs go test on packages that use weft, as its users do.
func TestGoTest(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test")
	}
	t.Parallel()
	dir := gotestModule(t)

	t.Run("global", func(t *testing.T) {
		// A package-level lock, used by every execution: worker
		// processes run them one at a time each.
		ok, out := goTest(t, dir, "./global", "-explore", "-explore.iters", "3000", "-explore.workers", "2", "-v")
		if !ok || !strings.Contains(out, "no failure in 3000 executions") || !strings.Contains(out, "2 worker processes") {
			t.Fatalf("go test -explore:\n%s", out)
		}
	})

	t.Run("procs", func(t *testing.T) {
		// Executions that depend on GOMAXPROCS: worker processes run with
		// the test's.
		ok, out := goTest(t, dir, "./procs", "-explore", "-explore.iters", "2000", "-explore.workers", "2", "-v", "-cpu", "2")
		if !ok || !strings.Contains(out, "ran differently in a worker process with GOMAXPROCS=1") ||
			strings.Contains(out, "than in the test's") || !strings.Contains(out, "no failure in 2000 executions") {
			t.Fatalf("go test -explore:\n%s", out)
		}
	})

	t.Run("parallel", func(t *testing.T) {
		// The test process's default -parallel, 2 at GOMAXPROCS=2, holds
		// in its worker processes, at GOMAXPROCS=1: the subtests meet, and
		// the executions run there as in the test process.
		ok, out := goTestEnv(t, dir, []string{"GOMAXPROCS=2"}, "./parallel", "-explore", "-explore.iters", "200", "-explore.workers", "2", "-v")
		if !ok || !strings.Contains(out, "no failure in 200 executions") || !strings.Contains(out, "2 worker processes") ||
			strings.Contains(out, "ran differently") {
			t.Fatalf("go test -explore:\n%s", out)
		}
	})

	t.Run("logs", func(t *testing.T) {
		_, out := goTest(t, dir, "./logs", "-json")
		want := map[string]string{
			"TestLogs/explore":     "logs_test.go:13: hello from the body",
			"TestLogs/explore/sub": "logs_test.go:17: hello from a goroutine of the subtest",
		}
		passed := map[string]bool{}
		sc := bufio.NewScanner(strings.NewReader(out))
		for sc.Scan() {
			var e struct{ Action, Test, Output string }
			if json.Unmarshal(sc.Bytes(), &e) != nil {
				continue
			}
			if line, ok := want[e.Test]; ok && e.Action == "output" && strings.TrimSpace(e.Output) == line {
				delete(want, e.Test)
			}
			if e.Action == "pass" {
				passed[e.Test] = true
			}
		}
		if len(want) > 0 || !passed["TestLogs/explore/sub"] || !passed["TestLogs"] {
			t.Fatalf("missing %q, passed %v in:\n%s", want, passed, out)
		}
	})

	t.Run("flaky", func(t *testing.T) {
		ok, out := goTest(t, dir, "./flaky")
		if ok || !strings.Contains(out, "weft: execution 1 (") || !strings.Contains(out, "does not replay identically: not saved") {
			t.Fatalf("go test:\n%s", out)
		}
		if _, err := os.Stat(filepath.Join(dir, "flaky", "testdata")); !os.IsNotExist(err) {
			t.Fatalf("a failure that does not replay was saved (%v)", err)
		}
	})

	t.Run("rerun", func(t *testing.T) {
		// A failure that comes from what the first execution left in a
		// package variable: a fresh process, as go test, passes.
		ok, out := goTest(t, dir, "./rerun", "-v", "-run", "TestClosesPool")
		if !ok || !strings.Contains(out, "weft: execution 2 failed") || !strings.Contains(out, "passes when a fresh process follows its schedule") {
			t.Fatalf("go test:\n%s", out)
		}
		// The same in a subtest: the test shows it, as go test does.
		ok, out = goTest(t, dir, "./rerun", "-v", "-run", "TestSubtestClosesPool")
		if !ok || !strings.Contains(out, "passes when a fresh process follows its schedule") ||
			!strings.Contains(out, "--- PASS: TestSubtestClosesPool/explore/sub") {
			t.Fatalf("go test:\n%s", out)
		}
		// A fresh process that fails otherwise: the report says with what.
		ok, out = goTest(t, dir, "./rerun", "-run", "TestFirstRunLeaks")
		if ok || !strings.Contains(out, "the pool is closed") || !strings.Contains(out, "this schedule fails otherwise: leak") {
			t.Fatalf("go test:\n%s", out)
		}
		if entries, _ := os.ReadDir(filepath.Join(dir, "rerun", "testdata", "weft", "TestClosesPool")); len(entries) > 0 {
			t.Fatalf("a failure a fresh process does not reproduce was saved: %v", entries)
		}
		// A failure in the first execution of a test, from what an
		// earlier test left: a fresh process, as go test, passes.
		ok, out = goTest(t, dir, "./rerun", "-v", "-run", "TestRegisters")
		if !ok || !strings.Contains(out, "TestRegistersAfter") || !strings.Contains(out, "weft: execution 1 failed (panic") ||
			!strings.Contains(out, "passes when a fresh process follows its schedule") {
			t.Fatalf("go test:\n%s", out)
		}
		if entries, _ := os.ReadDir(filepath.Join(dir, "rerun", "testdata", "weft", "TestRegistersAfter")); len(entries) > 0 {
			t.Fatalf("a failure a fresh process does not reproduce was saved: %v", entries)
		}
		// The same, from a failure that does not replay identically,
		// which is not saved: it is confirmed too.
		ok, out = goTest(t, dir, "./rerun", "-v", "-run", "TestRegistersUnreplayed")
		if !ok || !strings.Contains(out, "weft: execution 2 failed (error") ||
			!strings.Contains(out, "passes when a fresh process follows its schedule") {
			t.Fatalf("go test:\n%s", out)
		}
		// A fresh process whose execution a goroutine outside it
		// touched: neither failure replays, nothing is saved.
		ok, out = goTest(t, dir, "./rerun", "-run", "TestFreshRunTouchedFromOutside")
		if ok || !strings.Contains(out, "the pool is closed") || !strings.Contains(out, "the schedule fails otherwise: outside at rerun_test.go:") ||
			!strings.Contains(out, "not saved") {
			t.Fatalf("go test:\n%s", out)
		}
		if entries, _ := os.ReadDir(filepath.Join(dir, "rerun", "testdata", "weft", "TestFreshRunTouchedFromOutside")); len(entries) > 0 {
			t.Fatalf("a failure whose fresh process a goroutine outside touched was saved: %v", entries)
		}
		// A first execution that fails on what an earlier test's execution,
		// touched from outside, left: confirmed in a fresh process, which
		// passes, and the note names the earlier test.
		_, out = goTest(t, dir, "./rerun", "-v", "-run", "TestTouchedFromOutside$|TestAfterOutside$")
		if !strings.Contains(out, "--- PASS: TestAfterOutside") || !strings.Contains(out, "weft: execution 1 failed") ||
			!strings.Contains(out, "earlier in this process, TestTouchedFromOutside failed as outside") {
			t.Fatalf("go test:\n%s", out)
		}
	})

	t.Run("found", func(t *testing.T) {
		// The same execution is found, whatever the workers.
		var first string
		for _, workers := range []string{"1", "2"} {
			os.RemoveAll(filepath.Join(dir, "found", "testdata"))
			ok, out := goTest(t, dir, "./found", "-explore", "-explore.seed", "7", "-explore.iters", "20000", "-explore.workers", workers)
			found := regexp.MustCompile(`found a failing schedule in execution \d+ .*\n(?s:.*)event hash 0x[0-9a-f]+`).FindString(out)
			if ok || found == "" {
				t.Fatalf("%s workers:\n%s", workers, out)
			}
			if first == "" {
				first = found
			} else if found != first {
				t.Fatalf("%s workers found\n%s\n1 worker found\n%s", workers, found, first)
			}
		}
	})

	t.Run("crash", func(t *testing.T) {
		// The execution that kills its worker process is the first that
		// draws 0, which the test process runs alike without the crash.
		want := crashSeed(t)
		ok, out := goTest(t, dir, "./crash", "-explore", "-explore.seed", want.seed, "-explore.iters", "2000", "-explore.workers", "2")
		if ok || !strings.Contains(out, "weft: execution "+want.execution+" (") || !strings.Contains(out, "ended its worker process") ||
			!strings.Contains(out, "panic: boom") || !strings.Contains(out, "crash_test.go:14") {
			t.Fatalf("want a crash of execution %s:\n%s", want.execution, out)
		}
	})
}

// crashSeed finds a seed with which the first execution of package crash
// that draws 0 comes after those the test process runs itself.
func crashSeed(t *testing.T) struct{ seed, execution string } {
	t.Helper()
	for seed := uint64(1); ; seed++ {
		f, err := weft.Find(func(t *weft.T) {
			if sim.Intn(40) == 0 {
				t.Errorf("draws 0")
			}
		}, weft.Seed(seed), weft.Iterations(2000))
		if err != nil || f == nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if f.Found.Iteration >= 20 {
			return struct{ seed, execution string }{strconv.FormatUint(seed, 10), strconv.Itoa(f.Found.Iteration + 1)}
		}
	}
}
