//go:build unix

// Command realmodules measures weft test on the test suites of well-known
// open-source Go modules, as a new user meets it: each pristine module is
// copied from the module proxy into a scratch folder, and go test ./... and
// weft test ./... run on it, changing nothing. It prints the table of the
// README: per module, its packages and tests, the tests that pass under go
// test, the packages weft test could not build (there must be none), the
// tests that pass under go test but not under weft test, and weft test's
// time over go test's. The failures follow the table, with the first lines
// of what each test printed.
//
// A module published without a go.mod gets the one go test needs (see
// addGoMod), and nothing else.
//
// It needs the module proxy, so it is not part of CI:
//
//	go build -o /tmp/weft ./cmd/weft
//	go run ./scripts/realmodules -weft /tmp/weft [-work DIR] [-timeout 10m] [module@version...]
//
// Without modules it runs the list below. The weft cache is the user's: a
// second run is a warm one.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"
)

// modules are the suites measured by default: worker pools, errgroup-style
// helpers, caches, rate limiters, a connection pool and a circuit breaker,
// chosen among those whose own go test passes on a machine
// without network.
var modules = []string{
	"golang.org/x/sync@v0.24.0",
	"github.com/panjf2000/ants/v2@v2.12.1",
	"github.com/sourcegraph/conc@v0.3.0",
	"github.com/alitto/pond/v2@v2.7.1",
	"github.com/gammazero/workerpool@v1.3.0",
	"github.com/jellydator/ttlcache/v3@v3.4.1",
	"golang.org/x/time@v0.16.0",
	"go.uber.org/ratelimit@v0.3.1",
	"github.com/jackc/puddle/v2@v2.2.3",
	"github.com/hashicorp/golang-lru/v2@v2.0.7",
	"github.com/sony/gobreaker/v2@v2.4.0",
	"github.com/allegro/bigcache/v3@v3.1.0",
}

func main() {
	weft := flag.String("weft", "weft", "the weft binary")
	work := flag.String("work", "", "the scratch folder (default: a new temporary one)")
	timeout := flag.Duration("timeout", 10*time.Minute, "the time each go test or weft test run is given")
	flag.Parse()
	mods := flag.Args()
	if len(mods) == 0 {
		mods = modules
	}
	if *work == "" {
		dir, err := os.MkdirTemp("", "realmodules-")
		if err != nil {
			fatal(err)
		}
		*work = dir
	}
	if err := os.MkdirAll(*work, 0o755); err != nil {
		fatal(err)
	}
	var rows []row
	for _, m := range mods {
		r, err := measure(m, *weft, *work, *timeout)
		if err != nil {
			fmt.Fprintf(os.Stderr, "realmodules: %s: %v\n", m, err)
			continue
		}
		fmt.Fprintf(os.Stderr, "realmodules: %s done\n", m)
		rows = append(rows, r)
	}
	print(os.Stdout, rows)
	fmt.Printf("\nlogs: %s\n", *work)
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "realmodules:", err)
	os.Exit(1)
}

// row is one module's measure.
type row struct {
	module           string
	packages, tests  int
	passGo           int
	buildFailed      []string          // packages weft test could not build
	goBuildFailed    []string          // packages go test could not build either
	depsFailed       []string          // dependencies among them
	depsOutput       map[string]string // the compiler's first messages for each
	lost             map[string]string // tests passing under go test only: their output's start
	goTime, weftTime time.Duration
	weftErr          string   // weft test's own error, if it ran no go test
	summary          string   // weft test's summary line
	goFailed         []string // tests failing under go test
}

// measure copies mod out of the module cache and runs both commands on it.
func measure(mod, weft, work string, timeout time.Duration) (row, error) {
	r := row{module: mod, lost: map[string]string{}, depsOutput: map[string]string{}}
	dir, err := fetch(mod, work)
	if err != nil {
		return r, err
	}
	logBase := filepath.Join(work, strings.NewReplacer("/", "_", "@", "_").Replace(mod))
	goRes, goTime, _, err := run(dir, timeout, logBase+".go.json", "go", "test", "-json", "-count=1", "./...")
	if err != nil {
		return r, err
	}
	weftRes, weftTime, stderr, err := run(dir, timeout, logBase+".weft.json", weft, "test", "-json", "-count=1", "./...")
	if err != nil {
		return r, err
	}
	r.goTime, r.weftTime = goTime, weftTime
	for _, line := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(line, "weft: ") && strings.Contains(line, "instrumented") {
			r.summary = line
		}
	}
	if len(weftRes.packages) == 0 {
		r.weftErr = strings.TrimSpace(stderr)
	}
	r.packages = len(goRes.packages)
	for pkg := range goRes.packages {
		for test, ok := range goRes.tests[pkg] {
			r.tests++
			if !ok {
				r.goFailed = append(r.goFailed, pkg+"."+test)
				continue
			}
			r.passGo++
			if weftRes.tests[pkg][test] {
				continue
			}
			out := weftRes.output[pkg+"\x00"+test]
			if weftRes.buildFailed[pkg] {
				out = "package did not build: " + weftRes.output[pkg+"\x00"]
			} else if _, ran := weftRes.tests[pkg][test]; !ran {
				out = "did not run: " + weftRes.output[pkg+"\x00"]
			}
			r.lost[pkg+"."+test] = out
		}
	}
	for pkg := range weftRes.buildFailed {
		switch {
		case goRes.buildFailed[pkg]:
			// go test cannot build it either (backoff's example fails
			// go vet): not weft's to build.
			r.goBuildFailed = append(r.goBuildFailed, pkg)
		case goRes.packages[pkg]:
			r.buildFailed = append(r.buildFailed, pkg)
		default:
			r.depsFailed = append(r.depsFailed, pkg)
			r.depsOutput[pkg] = weftRes.output[pkg+"\x00"]
		}
	}
	sort.Strings(r.buildFailed)
	sort.Strings(r.goBuildFailed)
	sort.Strings(r.depsFailed)
	sort.Strings(r.goFailed)
	return r, nil
}

// fetch copies the pristine module out of the module cache, downloading
// it through the proxy, and returns the copy's directory.
func fetch(mod, work string) (string, error) {
	cmd := exec.Command("go", "mod", "download", "-json", mod)
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "GOWORK=off")
	out, err := cmd.Output()
	var m struct{ Dir, Error string }
	if jerr := json.Unmarshal(out, &m); jerr != nil || m.Error != "" || m.Dir == "" {
		return "", fmt.Errorf("go mod download %s: %v %s", mod, err, m.Error)
	}
	dst := filepath.Join(work, strings.NewReplacer("/", "_", "@", "_").Replace(mod))
	if err := os.RemoveAll(dst); err != nil {
		return "", err
	}
	if err := os.CopyFS(dst, os.DirFS(m.Dir)); err != nil {
		return "", err
	}
	err = filepath.WalkDir(dst, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		return os.Chmod(path, info.Mode()|0o200)
	})
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(filepath.Join(dst, "go.mod")); err == nil {
		return dst, nil
	}
	return dst, addGoMod(dst, mod)
}

// addGoMod gives a module published without a go.mod (a "+incompatible"
// version) the one go test needs to run in its folder: its path, and the
// go 1.16 that Go assumes for such a module when another requires it, so
// that its code keeps the language it was written for; go mod tidy then
// requires its dependencies, if any.
func addGoMod(dir, mod string) error {
	path, _, _ := strings.Cut(mod, "@")
	gomod := "module " + path + "\n\ngo 1.16\n"
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644); err != nil {
		return fmt.Errorf("%s has no go.mod: %w", mod, err)
	}
	cmd := exec.Command("go", "mod", "tidy")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s has no go.mod: go mod tidy on the one written: %v\n%s", mod, err, out)
	}
	return nil
}

// result is what a go test -json run said.
type result struct {
	packages    map[string]bool            // every package reported
	tests       map[string]map[string]bool // package → top-level test → passed
	buildFailed map[string]bool
	output      map[string]string // package\x00test → its first lines; package\x00 → the package's
}

// run runs a go test -json command in dir, with its JSON saved to log,
// and returns what it said, how long it took and its stderr.
func run(dir string, timeout time.Duration, log string, name string, args ...string) (*result, time.Duration, string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	// On a timeout, go test's own children (the test binaries) go too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.Env = append(os.Environ(), "GOWORK=off")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	elapsed := time.Since(start)
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return nil, 0, "", fmt.Errorf("%s: %w", name, err)
	}
	if ctx.Err() != nil {
		fmt.Fprintf(&stderr, "\n%s timed out after %v\n", name, timeout)
	}
	if err := os.WriteFile(log, append(stdout.Bytes(), stderr.Bytes()...), 0o644); err != nil {
		return nil, 0, "", err
	}
	return parse(&stdout), elapsed, stderr.String(), nil
}

// event is a line of go test -json.
type event struct {
	Action, Package, ImportPath, Test, Output, FailedBuild string
}

func parse(r io.Reader) *result {
	res := &result{packages: map[string]bool{}, tests: map[string]map[string]bool{}, buildFailed: map[string]bool{}, output: map[string]string{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		if e.Action == "build-output" {
			// The compiler's messages, under the package's import path and
			// the test binary's ("p [p.test]").
			pkg, _, _ := strings.Cut(e.ImportPath, " ")
			res.buildFailed[pkg] = true
			if strings.Count(res.output[pkg+"\x00"], "\n") < 12 {
				res.output[pkg+"\x00"] += e.Output
			}
			continue
		}
		top := e.Test != "" && !strings.Contains(e.Test, "/")
		switch e.Action {
		case "run":
			if top {
				if res.tests[e.Package] == nil {
					res.tests[e.Package] = map[string]bool{}
				}
				res.tests[e.Package][e.Test] = false
			}
		case "pass", "skip":
			if top {
				res.tests[e.Package][e.Test] = true
			} else if e.Test == "" {
				res.packages[e.Package] = true
			}
		case "fail":
			if e.Test == "" {
				res.packages[e.Package] = true
				if e.FailedBuild != "" {
					res.buildFailed[e.Package] = true
				}
			}
		case "output":
			key := e.Package + "\x00"
			if e.Test != "" {
				key += strings.SplitN(e.Test, "/", 2)[0]
			}
			// A test's own output may hold a go test it ran (zap's
			// TestStacktraceFiltersVendorZap prints one's "[setup failed]").
			if e.Test == "" && (strings.Contains(e.Output, "[build failed]") || strings.Contains(e.Output, "[setup failed]")) {
				res.buildFailed[e.Package] = true
			}
			if strings.HasPrefix(e.Output, "=== ") || strings.HasPrefix(e.Output, "weft: ") && strings.Contains(e.Output, "elapsed:") {
				continue
			}
			if strings.Count(res.output[key], "\n") < 12 {
				res.output[key] += e.Output
			}
		}
	}
	return res
}

// print writes the table, then the tests lost under weft test.
func print(w io.Writer, rows []row) {
	fmt.Fprintln(w, "| module@version | packages | tests | pass under go test | packages weft could not build | pass under go test, not weft test | time weft/go |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	var total row
	for _, r := range rows {
		fmt.Fprintf(w, "| %s | %d | %d | %d | %d | %s | %.2f× |\n", r.module, r.packages, r.tests, r.passGo, len(r.buildFailed), byKind(r.lost), r.weftTime.Seconds()/r.goTime.Seconds())
		total.packages += r.packages
		total.tests += r.tests
		total.passGo += r.passGo
		total.buildFailed = append(total.buildFailed, r.buildFailed...)
		total.goTime += r.goTime
		total.weftTime += r.weftTime
		for k, v := range r.lost {
			if total.lost == nil {
				total.lost = map[string]string{}
			}
			total.lost[k] = v
		}
	}
	fmt.Fprintf(w, "| total | %d | %d | %d | %d | %s | %.2f× |\n", total.packages, total.tests, total.passGo, len(total.buildFailed), byKind(total.lost), total.weftTime.Seconds()/total.goTime.Seconds())
	for _, r := range rows {
		fmt.Fprintf(w, "\n## %s (go test %v, weft test %v)\n%s\n", r.module, r.goTime.Round(time.Second), r.weftTime.Round(time.Second), r.summary)
		if r.weftErr != "" {
			fmt.Fprintf(w, "weft test ran no test: %s\n", r.weftErr)
		}
		for _, p := range r.buildFailed {
			fmt.Fprintf(w, "- did not build: %s\n", p)
		}
		for _, p := range r.depsFailed {
			fmt.Fprintf(w, "- dependency did not build: %s\n", p)
			for _, line := range strings.Split(strings.TrimRight(r.depsOutput[p], "\n"), "\n") {
				fmt.Fprintf(w, "      %s\n", line)
			}
		}
		for _, p := range r.goBuildFailed {
			fmt.Fprintf(w, "- does not build under go test either: %s\n", p)
		}
		for _, t := range r.goFailed {
			fmt.Fprintf(w, "- fails under go test too: %s\n", t)
		}
		var lost []string
		for t := range r.lost {
			lost = append(lost, t)
		}
		sort.Strings(lost)
		for _, t := range lost {
			fmt.Fprintf(w, "- %s (%s):\n", t, kind(r.lost[t]))
			for _, line := range strings.Split(strings.TrimRight(r.lost[t], "\n"), "\n") {
				fmt.Fprintf(w, "      %s\n", line)
			}
		}
	}
}

// kind names what a lost test's output says went wrong: the kind of
// failure weft reported (deadlock, leak, runaway, blocked, error, panic,
// ...), or that the package did not build, the run timed out, or the
// test did not run.
func kind(out string) string {
	switch {
	case strings.HasPrefix(out, "package did not build"):
		return "build"
	case strings.Contains(out, "panic: test timed out"):
		return "timeout"
	case strings.HasPrefix(out, "did not run"):
		return "not run"
	}
	for _, line := range strings.Split(out, "\n") {
		if _, after, ok := strings.Cut(line, "failure: "); ok {
			k, _, _ := strings.Cut(after, " ")
			return strings.TrimSuffix(k, ":")
		}
	}
	return "other"
}

// byKind counts lost tests by kind: "12 (5 deadlock, 4 runaway, ...)".
func byKind(lost map[string]string) string {
	if len(lost) == 0 {
		return "0"
	}
	n := map[string]int{}
	for _, out := range lost {
		n[kind(out)]++
	}
	kinds := make([]string, 0, len(n))
	for k := range n {
		kinds = append(kinds, k)
	}
	sort.Slice(kinds, func(i, j int) bool {
		return n[kinds[i]] > n[kinds[j]] || n[kinds[i]] == n[kinds[j]] && kinds[i] < kinds[j]
	})
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%d %s", n[k], k)
	}
	return fmt.Sprintf("%d (%s)", len(lost), strings.Join(parts, ", "))
}
