package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// demo shows weft's main job on one of its examples, with real go test
// runs in a scratch module: the bug is found and minimized, the schedule is
// saved, replayed (twice, to show it is deterministic), and once the bug is
// fixed, the saved schedule keeps passing as a regression test.
func demo(args []string) error { return runDemo(os.Stdout, args) }

func runDemo(w io.Writer, args []string) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	keep := fs.Bool("keep", false, "keep the scratch module")
	if err := fs.Parse(args); err != nil {
		return err
	}
	example := "lostupdate"
	if fs.NArg() > 0 {
		example = fs.Arg(0)
	}
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	src := filepath.Join(root, "examples", example)
	if _, err := os.Stat(src); err != nil {
		return fmt.Errorf("no example %q in %s", example, filepath.Join(root, "examples"))
	}
	scratch, err := os.MkdirTemp("", "weft-demo-")
	if err != nil {
		return err
	}
	if *keep {
		defer fmt.Fprintf(w, "\nThe scratch module is kept in %s\n", scratch)
	} else {
		defer os.RemoveAll(scratch)
	}
	pkg, err := setUp(root, src, scratch, example)
	if err != nil {
		return err
	}
	return demoSteps(w, pkg, example)
}

// demoSteps runs the demo's steps in the example's package pkg, a copy in
// the scratch module: find and save the bug of the buggy code, show the
// saved schedule, run it twice, and run it on the fixed code.
func demoSteps(w io.Writer, pkg, example string) error {
	if err := writeDemoTest(pkg, example, "Buggy"); err != nil {
		return err
	}
	fmt.Fprintf(w, "weft demo: examples/%s, copied to %s with a test of the buggy code:\n\n", example, pkg)
	fmt.Fprintf(w, "    func TestDemo(t *testing.T) { weft.Check(t, Buggy) }\n")

	step(w, 1, "explore until the bug shows, minimize it, save it", "go test -run TestDemo -explore -explore.time=30s")
	out, _ := goTest(w, pkg, "-run", "TestDemo", "-explore", "-explore.time=30s")
	m := regexp.MustCompile(`saved: (\S+)`).FindStringSubmatch(out)
	if m == nil {
		return errors.New("the exploration did not save a schedule")
	}
	saved := m[1]
	id := filepath.Base(saved)

	step(w, 2, "the saved schedule", "cat "+saved)
	data, err := os.ReadFile(filepath.Join(pkg, saved))
	if err != nil {
		return err
	}
	fmt.Fprint(w, indent(string(data)))

	run := fmt.Sprintf("^TestDemo$/^%s$", id)
	for i := range 2 {
		step(w, 3+i, "replay it: plain go test runs the saved schedule, the same failure every time", "go test -run '"+run+"'")
		goTest(w, pkg, "-run", run)
	}

	if err := writeDemoTest(pkg, example, "Fixed"); err != nil {
		return err
	}
	step(w, 5, "fix the bug (weft.Check(t, Fixed)): the saved schedule now passes, as a regression test", "go test -run TestDemo -v")
	if _, err := goTest(w, pkg, "-run", "TestDemo", "-v"); err != nil {
		return fmt.Errorf("the fixed code fails: %v", err)
	}
	return nil
}

// writeDemoTest writes the demo's test in pkg: TestDemo, checking body
// (Buggy or Fixed) with weft.Check.
func writeDemoTest(pkg, example, body string) error {
	return os.WriteFile(filepath.Join(pkg, "demo_test.go"), []byte(fmt.Sprintf(`package %s

import (
	"testing"

	weft "github.com/weftdev/weft/testing"
)

func TestDemo(t *testing.T) { weft.Check(t, %s) }
`, example, body)), 0o644)
}

func step(w io.Writer, n int, what, cmd string) {
	fmt.Fprintf(w, "\n%d. %s\n\n    $ %s\n", n, what, cmd)
}

// goTest runs go test in dir, printing its output indented.
func goTest(w io.Writer, dir string, args ...string) (string, error) {
	cmd := exec.Command("go", append([]string{"test"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	fmt.Fprint(w, indent(out.String()))
	return out.String(), err
}

func indent(s string) string {
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		b.WriteString("    " + line + "\n")
	}
	return b.String()
}

// setUp makes a scratch module that uses this checkout of weft and holds a
// copy of the example package; it returns the package's directory.
func setUp(root, src, scratch, example string) (string, error) {
	gomod := fmt.Sprintf("module weftdemo\n\ngo 1.26\n\nrequire github.com/weftdev/weft v0.0.0\n\nreplace github.com/weftdev/weft => %s\n", root)
	if err := os.WriteFile(filepath.Join(scratch, "go.mod"), []byte(gomod), 0o644); err != nil {
		return "", err
	}
	if sum, err := os.ReadFile(filepath.Join(root, "go.sum")); err == nil {
		if err := os.WriteFile(filepath.Join(scratch, "go.sum"), sum, 0o644); err != nil {
			return "", err
		}
	}
	pkg := filepath.Join(scratch, example)
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		return "", err
	}
	files, err := filepath.Glob(filepath.Join(src, "*.go"))
	if err != nil {
		return "", err
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(pkg, filepath.Base(f)), data, 0o644); err != nil {
			return "", err
		}
	}
	return pkg, nil
}

// moduleRoot finds the checkout of weft the command runs from.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/weftdev/weft").Output()
	if err == nil && len(bytes.TrimSpace(out)) > 0 {
		return string(bytes.TrimSpace(out)), nil
	}
	return "", errors.New("run weft demo from a checkout of weft (go run ./cmd/weft demo)")
}
