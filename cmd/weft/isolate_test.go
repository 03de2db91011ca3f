package main

import (
	"bufio"
	"encoding/json"
	"strings"
	"testing"
)

// TestWeftTestKeepsGoTestOutput checks that what a test logs, and its
// subtests with their results and logs, show under weft test as under go
// test, in -v and -json; and that a goroutine that logs after its test
// completed is go test's panic, found, saved and replayed, while one that
// logs before a Cleanup or its parent test ends is not.
func TestWeftTestKeepsGoTestOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test")
	}
	dir := plainModule(t)
	var out strings.Builder
	if _, err := runTest(dir, []string{"-count=1", "-json", "./logf", "./subtests"}, &out, &out); err != nil {
		t.Fatal(err)
	}
	lines := map[string][]string{}
	results := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(out.String()))
	for sc.Scan() {
		var e struct{ Action, Test, Output string }
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.Test == "" {
			continue
		}
		switch e.Action {
		case "output":
			lines[e.Test] = append(lines[e.Test], strings.TrimSpace(e.Output))
		case "pass", "fail", "skip":
			results[e.Test] = e.Action
		}
	}
	has := func(test, line string) bool {
		for _, l := range lines[test] {
			if l == line {
				return true
			}
		}
		return false
	}
	for _, c := range []struct{ test, line, result string }{
		{"TestLogf", "logf_test.go:7: hello from the test body", "pass"},
		{"TestLogBeforeCleanup", "legal_test.go:18: before the cleanup ends", "pass"},
		{"TestLogToParent", "legal_test.go:34: after the subtest", "pass"},
		{"TestContextBeforeCleanup", "legal_test.go:49: canceled before the cleanup", "pass"},
		{"TestSkipped", "logf_test.go:19: before the skip", "skip"},
		{"TestSkipped", "logf_test.go:20: not today", "skip"},
		{"TestSub", "subtests_test.go:11: before the subtests", "fail"},
		{"TestSub/good", "subtests_test.go:15: good runs", "pass"},
		{"TestSub/bad", "subtests_test.go:19: always fails", "fail"},
		{"TestSub/skipped", "subtests_test.go:23: skips itself", "skip"},
	} {
		if !has(c.test, c.line) || results[c.test] != c.result {
			t.Errorf("%s: want %s with %q; got %s with %q", c.test, c.result, c.line, results[c.test], lines[c.test])
		}
	}
	if has("TestSub/bad", "subtests_test.go:20: not reached") {
		t.Errorf("TestSub/bad went on after Fatal: %q", lines["TestSub/bad"])
	}
	if n := strings.Count(strings.Join(lines["TestSkipped"], "\n"), "not today"); n != 1 {
		t.Errorf("TestSkipped says why %d times: %q", n, lines["TestSkipped"])
	}
	late := strings.Join(lines["TestLogAfterEnd"], "\n")
	if results["TestLogAfterEnd"] != "fail" || !strings.Contains(late, "failure: panic in goroutine 0.1 at logf_test.go:14: Log in goroutine after TestLogAfterEnd has completed: late") ||
		!strings.Contains(late, "saved: ") {
		t.Errorf("TestLogAfterEnd: want go test's panic for the late log, saved; got %s:\n%s", results["TestLogAfterEnd"], late)
	}
	out.Reset()
	code, err := runTest(dir, []string{"-count=1", "-run", "TestLogAfterEnd", "./logf"}, &out, &out)
	if err != nil {
		t.Fatal(err)
	}
	if code == 0 || !strings.Contains(out.String(), "the saved schedule") || !strings.Contains(out.String(), "Log in goroutine after TestLogAfterEnd has completed") {
		t.Errorf("the saved schedule of TestLogAfterEnd does not fail:\n%s", out.String())
	}
}

// TestWeftTestExploresInWorkerProcesses explores a package-level lock,
// used by every execution, with two worker processes: executions never
// share it.
func TestWeftTestExploresInWorkerProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test")
	}
	dir := plainModule(t)
	var out strings.Builder
	code, err := runTest(dir, []string{"-count=1", "-v", "./global", "-explore", "-explore.iters", "3000", "-explore.workers", "2"}, &out, &out)
	if err != nil {
		t.Fatal(err)
	}
	if code != 0 || !strings.Contains(out.String(), "no failure in 3000 executions") || !strings.Contains(out.String(), "2 worker processes") {
		t.Fatalf("weft test -explore:\n%s", out.String())
	}
}
