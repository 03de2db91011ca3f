package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDemo runs weft's main job end to end, with real go test runs of an
// example package in a scratch module: the bug is found and minimized, the
// schedule saved, replayed twice with the same failure, and passing once the
// code is fixed.
func TestDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test several times")
	}
	var out strings.Builder
	if err := runDemo(&out, []string{"lostupdate"}); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	text := out.String()
	for _, want := range []string{
		"found a failing schedule",
		"preemptions: 1, minimized from",
		"deterministic: replayed 3 times",
		"preempt 0.1#2 -> 0.2 @ Var.Store counter.go:",
		"--- PASS: TestDemo",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the demo's output lacks %q:\n%s", want, text)
		}
	}
	// The report points at the user's test, not at weft's code.
	if strings.Contains(text, "check.go:") {
		t.Errorf("the report is attributed to weft's check.go:\n%s", text)
	}
	// Both replays fail the same way.
	fails := regexp.MustCompile(`the saved schedule \S+ fails\n\s+failure: (.*)`).FindAllStringSubmatch(text, -1)
	if len(fails) != 2 || fails[0][1] != fails[1][1] {
		t.Errorf("want two identical replay failures, got %q", fails)
	}
}

// TestMalformedCorpusEntry checks that go test names the file, line and
// problem of a corrupt saved schedule, and still runs the rest.
func TestMalformedCorpusEntry(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test")
	}
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	scratch := t.TempDir()
	pkg, err := setUp(root, filepath.Join(root, "examples", "lostupdate"), scratch, "lostupdate")
	if err != nil {
		t.Fatal(err)
	}
	test := "package lostupdate\n\nimport (\n\t\"testing\"\n\n\tweft \"github.com/weftdev/weft/testing\"\n)\n\nfunc TestFixed(t *testing.T) { weft.Check(t, Fixed) }\n"
	if err := os.WriteFile(filepath.Join(pkg, "fixed_test.go"), []byte(test), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(pkg, "testdata", "weft", "TestFixed")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bad := "weft schedule v1\ntest: TestFixed\n\npreempt 0.1#x -> 0.2\n"
	if err := os.WriteFile(filepath.Join(dir, "0123456789abcdef"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "test", "-run", "TestFixed", "-v")
	cmd.Dir = pkg
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	outb, err := cmd.CombinedOutput()
	out := string(outb)
	if err == nil {
		t.Fatalf("go test passed with a malformed corpus entry:\n%s", out)
	}
	if !strings.Contains(out, "0123456789abcdef:4:") || !strings.Contains(out, "--- PASS: TestFixed/explore") {
		t.Errorf("want the file and line named, and the exploration run:\n%s", out)
	}
}
