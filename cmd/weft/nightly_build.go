package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/weftdev/weft/internal/workspace"
	"github.com/weftdev/weft/report"
)

// nightly is one weft nightly run.
type nightly struct {
	a              nightlyArgs
	dir            string // where the command runs
	stdout, stderr io.Writer
	tmp            string // the test binaries and the test processes' reports
	setup          *setup
	env            []string // go's environment: the workspace
	pkgs           []*nightlyPkg
	tests          []*nightlyTest
	start          time.Time // the run's
	began          time.Time // the budget's: the tests are built

	mu          sync.Mutex
	current     *nightlyTest // the test running
	execs       int          // its executions so far, from its progress lines
	found       int          // and its failures
	round       int          // the round running, from 0
	roundTests  int          // its tests
	done        int          // its tests finished
	doneExecs   int          // their executions
	failures    int          // distinct failures found
	interrupted bool
	child       *os.Process // the test process running
}

// A nightlyPkg is a package with tests.
type nightlyPkg struct {
	path, dir string
	bin       string // its test binary
	err       string // why it could not be built or listed
}

// A nightlyTest is a top-level test of a package.
type nightlyTest struct {
	pkg    *nightlyPkg
	name   string
	weight float64
	budget time.Duration // its budgets, added over the rounds
	ran    bool
	failed bool          // its test process failed
	output []byte        // what it printed, but for progress lines
	tests  []report.Test // its explorations (several if it calls Check in subtests), over the rounds; none if it is not a weft test
	note   string        // why it was not run, or how its process ended
	profs  []string      // the test processes' profiles
}

func newNightly(dir string, a nightlyArgs, stdout, stderr io.Writer) (*nightly, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "weft-nightly-")
	if err != nil {
		return nil, err
	}
	return &nightly{a: a, dir: abs, stdout: stdout, stderr: stderr, tmp: tmp, start: time.Now()}, nil
}

func (n *nightly) close() { os.RemoveAll(n.tmp) }

// build instruments the packages as weft test does, builds each package's
// test binary, and lists its tests.
func (n *nightly) build() error {
	s, err := prepare(n.dir, n.a.test)
	if err != nil {
		return err
	}
	n.setup = s
	n.env = workspace.Env(os.Environ(), s.Work)
	if n.a.verbose {
		s.list(n.stderr)
	}
	s.summarize(n.stderr)
	if err := n.listPackages(); err != nil {
		return err
	}
	for i, p := range n.pkgs {
		p.bin = filepath.Join(n.tmp, fmt.Sprintf("pkg%d.test", i))
		args := append([]string{"test", "-c", "-o", p.bin, "-overlay=" + s.Overlay}, n.a.test.goArgs...)
		if n.a.test.mod != "" {
			args = append(args, "-mod="+n.a.test.mod)
		}
		cmd := exec.Command("go", append(args, p.path)...)
		cmd.Dir, cmd.Env = n.dir, n.env
		if out, err := cmd.CombinedOutput(); err != nil {
			p.err = fmt.Sprintf("building its tests: %v\n%s", err, out)
			continue
		}
		if _, err := os.Stat(p.bin); err != nil {
			continue // no test files after all
		}
		if err := n.listTests(p); err != nil {
			p.err = err.Error()
		}
	}
	return nil
}

// listPackages lists the packages of the patterns that have test files.
func (n *nightly) listPackages() error {
	args := append([]string{"list", "-e", "-overlay=" + n.setup.Overlay, "-f",
		"{{.ImportPath}}\t{{.Dir}}\t{{len .TestGoFiles}}\t{{len .XTestGoFiles}}\t{{with .Error}}{{.}}{{end}}"},
		buildFlags(n.a.test.goArgs)...)
	cmd := exec.Command("go", append(args, n.a.test.patterns...)...)
	cmd.Dir, cmd.Env = n.dir, n.env
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("go list: %v\n%s", err, errOut.String())
	}
	for _, line := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		f := strings.SplitN(line, "\t", 5)
		if len(f) < 5 {
			continue
		}
		p := &nightlyPkg{path: f[0], dir: f[1], err: f[4]}
		if f[2] == "0" && f[3] == "0" && p.err == "" {
			continue
		}
		n.pkgs = append(n.pkgs, p)
	}
	if len(n.pkgs) == 0 {
		return fmt.Errorf("no package with tests in %s", strings.Join(n.a.test.patterns, " "))
	}
	return nil
}

// listTests asks a test binary for its tests (-test.list), keeps those -run
// selects, and weighs them.
func (n *nightly) listTests(p *nightlyPkg) error {
	cmd := exec.Command(p.bin, "-test.list", "^Test")
	cmd.Dir = p.dir
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("listing its tests: %v", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		name := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(name, "Test") || strings.Contains(name, " ") {
			continue
		}
		if n.a.run != nil && !n.a.run.MatchString(name) {
			continue
		}
		t := &nightlyTest{pkg: p, name: name}
		if t.weight = n.a.weightOf(t); t.weight > 0 {
			n.tests = append(n.tests, t)
		}
	}
	return nil
}

// relDir returns a package's directory relative to where the command runs,
// as go test takes it.
func (n *nightly) relDir(p *nightlyPkg) string {
	rel, err := filepath.Rel(n.dir, p.dir)
	if err != nil || strings.HasPrefix(rel, "..") {
		return p.path
	}
	if rel == "." {
		return "."
	}
	return "./" + filepath.ToSlash(rel)
}

func itoa(n int) string { return strconv.Itoa(n) }
