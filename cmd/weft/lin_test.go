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

// linModule copies testdata/lin, plain Go tested with lin.Check and
// weft.Property, into a scratch module.
func linModule(t *testing.T) string {
	t.Helper()
	return weftModule(t, "example.com/lin", "testdata/lin")
}

// weftModule copies a directory of testdata into a scratch module, path
// module, that requires weft (replaced by this checkout) with weft's own
// requirements, as a user's module would.
func weftModule(t *testing.T, module, src string) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	var requires []string
	for _, line := range strings.Split(string(gomod), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && strings.Contains(f[0], ".") && strings.HasPrefix(f[1], "v") {
			requires = append(requires, "\t"+f[0]+" "+f[1])
		}
	}
	mod := "module " + module + "\n\ngo 1.26\n\nrequire (\n\tgithub.com/weftdev/weft v0.0.0\n" + strings.Join(requires, "\n") +
		"\n)\n\nreplace github.com/weftdev/weft => " + root + "\n"
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(mod), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestWeftTestLin runs property and linearizability tests of plain Go
// through weft test: weft test leaves the tests that call weft's property
// mode running as go test runs them, rewrites the code they test, and the
// bugs are found, saved with their inputs, and replayed; the fixed twin
// passes, and plain go test, which cannot interleave plain Go, passes.
func TestWeftTestLin(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test several times")
	}
	dir := linModule(t)
	run := weftTestIn(t, dir)
	if code, out := run("-run", "TestFixed", "./..."); code != 0 {
		t.Fatalf("weft test of the fixed counter failed:\n%s", out)
	}
	code, out := run("-run", "TestBug|TestHits", "./...")
	if code == 0 || !strings.Contains(out, "not linearizable") || !strings.Contains(out, "Get = ") {
		t.Fatalf("weft test did not find both bugs:\n%s", out)
	}
	if !regexp.MustCompile(`replay: weft test -run '\^TestBug\$/\^[0-9a-f]{16}\$' \./counter`).MatchString(out) {
		t.Errorf("no replay command with weft test in the report:\n%s", out)
	}
	if !strings.Contains(out, "| goroutine 0.1") || !strings.Contains(out, "counter.go:") {
		t.Errorf("the report shows no history columns, or no timeline in the user's file:\n%s", out)
	}
	for _, test := range []string{"TestBug", "TestHits"} {
		entries, err := corpus.List(filepath.Join(dir, "counter", "testdata", "weft", test))
		if err != nil || len(entries) != 1 || entries[0].Err != nil || len(entries[0].Entry.Input) == 0 {
			t.Fatalf("%s: want one saved case with its inputs, got %v (%v)\n%s", test, entries, err, out)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "counter", "testdata", "rapid")); !os.IsNotExist(err) {
		t.Errorf("rapid's fail files were left next to weft's corpus (%v)", err)
	}
	code, out = run("-run", "TestBug/[0-9a-f]{16}|TestHits/[0-9a-f]{16}", "./...")
	if code == 0 || strings.Count(out, "the saved case") != 2 {
		t.Fatalf("the saved cases do not both fail:\n%s", out)
	}

	// Plain go test runs the same tests without weft's rewrite: nothing
	// interleaves inside the counter's operations, and nothing fails.
	cmd := exec.Command("go", "test", "-mod=mod", "-run", "TestBug|TestFixed", "./...")
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("plain go test: %v\n%s", err, b)
	}
}
