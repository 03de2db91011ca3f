package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestInstalled installs weft as a user does, go install
// github.com/weftdev/weft/cmd/weft@VERSION (from a file:// proxy holding
// this checkout at a made-up version), and runs the installed binary's
// weft test in a module that does not require weft: its runtime comes from
// the module cache's copy of that version, not from a checkout.
func TestInstalled(t *testing.T) {
	if testing.Short() {
		t.Skip("installs weft")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	e := newGoEnv(t)
	const version = "v0.99.0"
	e.publish(t, root, version)
	bin := t.TempDir()
	install := exec.Command("go", "install", "-trimpath", "github.com/weftdev/weft/cmd/weft@"+version)
	install.Dir = t.TempDir()
	install.Env = append(os.Environ(), "GOBIN="+bin)
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("go install: %v\n%s", err, out)
	}
	app := t.TempDir()
	writeTree(t, app, map[string]string{
		"go.mod":      "module example.com/app\n\ngo 1.21\n",
		"dep/dep.go":  depModule["dep.go"],
		"app_test.go": appTest("example.com/app/dep"),
	})
	before := snapshot(t, app)
	weft := filepath.Join(bin, "weft")
	// weft's cache of its own, go's build cache the one in use.
	gocache, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOCACHE", strings.TrimSpace(string(gocache)))
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	run := func(args ...string) (string, error) {
		cmd := exec.Command(weft, args...)
		cmd.Dir = app
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := run("test", "-count=1", "-run", "TestWorkers|TestLoopVar", "./...")
	if err != nil || !strings.Contains(out, "weft: 2 packages instrumented") {
		t.Fatalf("installed weft test: %v\n%s", err, out)
	}
	out, err = run("test", "-count=1", "-run", "TestBug", "./...")
	if err == nil || !strings.Contains(out, "Value = 1, want 2") {
		t.Fatalf("installed weft test did not find the bug: %v\n%s", err, out)
	}
	// The workspace takes weft's runtime from the version installed.
	out, err = run("overlay", "./...")
	if err != nil {
		t.Fatalf("weft overlay: %v\n%s", err, out)
	}
	work, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimSpace(out), "GOWORK="), " ")
	data, err := os.ReadFile(work)
	if err != nil {
		t.Fatal(err)
	}
	want := "github.com/weftdev/weft => " + filepath.Join(e.modcache, "github.com", "weftdev", "weft@"+version)
	if !strings.Contains(string(data), want) {
		t.Errorf("the go.work does not take weft from the module cache (%s):\n%s", want, data)
	}
	unchanged(t, app, before)
}
