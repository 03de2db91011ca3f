// Package racetest checks, from weft's own tests, that racy test bodies are
// found as data races, saved and replayed. A race the race detector reports
// fails the test in whose process it happens (package testing counts them),
// so the racy bodies run in a child process: the test binary itself, run
// again with WEFT_RACETEST set, in a scratch directory where weft saves
// their schedules.
package racetest

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/weftdev/weft/corpus"
	"github.com/weftdev/weft/internal/race"
)

const childEnv = "WEFT_RACETEST"

// seed is the child's base seed, fixed so that every run of weft's own
// tests explores the same executions: a body with a race and another
// failure (examples/wgrace's wrong sum) would otherwise find either first.
const seed = "-explore.seed=2"

// Child reports whether the process is a child run of Check: racy bodies
// run only there.
func Child() bool { return os.Getenv(childEnv) != "" }

// Check runs the tests matching pattern (test functions of the calling
// package, or their subtests, each a weft.Check of a racy body) in a child
// process, exploring from a fixed seed, and checks that each of tests
// (their names, as t.Name gives them) found a data race and saved one
// schedule for it; then runs them again, and checks that each saved
// schedule replays with the same failure. It returns the entries saved, by
// test. It skips without the race detector.
func Check(t *testing.T, pattern string, tests []string, exploreArgs ...string) map[string]*corpus.Entry {
	t.Helper()
	if !race.Enabled {
		t.Skip("needs the race detector: go test -race")
	}
	dir := t.TempDir()
	args := append([]string{"-explore", "-explore.workers=1", seed}, exploreArgs...)
	out := run(t, dir, pattern, args...)
	entries := map[string]*corpus.Entry{}
	paths := map[string]string{}
	for _, test := range tests {
		files, err := corpus.List(filepath.Join(dir, "testdata", "weft", filepath.FromSlash(test)))
		if err != nil || len(files) != 1 || files[0].Err != nil {
			t.Errorf("%s: want one saved schedule, got %v (%v)\n%s", test, files, err, section(out, test))
			continue
		}
		e := files[0].Entry
		if kind, _, _ := strings.Cut(e.Signature, " "); kind != "race" {
			t.Errorf("%s: saved for %q, want a race\n%s", test, e.Failure, section(out, test))
			continue
		}
		if !strings.Contains(out, "failure: "+e.Failure) {
			t.Errorf("%s: the report does not name the failure saved, %q:\n%s", test, e.Failure, section(out, test))
		}
		entries[test] = e
		paths[test], _ = filepath.Rel(dir, files[0].Path)
	}
	if t.Failed() {
		return nil
	}
	// Replayed, each saved schedule fails with the race it was saved for.
	out = run(t, dir, pattern)
	for test, path := range paths {
		re := regexp.MustCompile(`the saved schedule ` + regexp.QuoteMeta(path) + ` fails\n\s+failure: (.*)`)
		if m := re.FindStringSubmatch(out); m == nil || m[1] != entries[test].Failure {
			t.Errorf("%s: replayed, want the failure %q, got %q:\n%s", path, entries[test].Failure, m, out)
		}
	}
	return entries
}

// run runs the tests matching pattern in a child process in dir, and
// returns its output. The child must fail: every racy body does.
func run(t *testing.T, dir, pattern string, args ...string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=" + pattern, "-test.v"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), childEnv+"=1")
	b, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("%s %v passed, want data races:\n%s", pattern, args, b)
	}
	return string(b)
}

// section returns the lines of out about subtest sub, for messages.
func section(out, sub string) string {
	var keep []string
	in := false
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "=== RUN") || strings.Contains(line, "--- ") {
			in = strings.Contains(line, sub)
		}
		if in {
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "\n")
}
