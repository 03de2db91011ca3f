package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// depModule is a dependency written with plain Go: a counter whose
// increment loses updates (two critical sections), and a worker pool.
var depModule = map[string]string{
	"go.mod": "module example.com/dep\n\ngo 1.21\n",
	// A file without concurrency whose imports nothing else in the build
	// imports: loading the dependency must give it their types.
	"table.go": `package dep

import (
	"bytes"
	"text/tabwriter"
)

// Table formats rows in columns.
func Table(rows ...string) string {
	var b bytes.Buffer
	w := tabwriter.NewWriter(&b, 0, 8, 1, ' ', 0)
	for _, r := range rows {
		w.Write([]byte(r + "\n"))
	}
	w.Flush()
	return b.String()
}
`,
	"dep.go": `// Package dep is a dependency that runs goroutines, channels and locks.
package dep

import (
	"fmt"
	"runtime"
	"sync"
)

// Where returns its own file:line, as the running code sees it.
func Where() string {
	_, file, line, _ := runtime.Caller(0)
	return fmt.Sprintf("%s:%d", file, line)
}

// Counter is shared by goroutines.
type Counter struct {
	mu sync.Mutex
	n  int
}

// Inc adds one, in two critical sections: an update can be lost.
func (c *Counter) Inc() {
	c.mu.Lock()
	v := c.n
	c.mu.Unlock()
	c.mu.Lock()
	c.n = v + 1
	c.mu.Unlock()
}

// Value returns the count.
func (c *Counter) Value() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// Run hands the jobs to n workers over a channel and waits for them.
func Run(n int, jobs []int, fn func(int)) {
	ch := make(chan int)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range ch {
				fn(j)
			}
		}()
	}
	for _, j := range jobs {
		ch <- j
	}
	close(ch)
	wg.Wait()
}
`,
}

// appTest is the test file of a package that uses dep (imported as
// importPath): TestBug loses an update inside dep, TestWorkers passes,
// TestLoopVar holds only with go 1.21's loop variables, one per loop.
func appTest(importPath string) string {
	return `package app

import (
	"fmt"
	"runtime"
	"sync"
	"testing"

	"` + importPath + `"
)

func TestBug(t *testing.T) {
	var c dep.Counter
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Inc()
		}()
	}
	wg.Wait()
	if c.Value() != 2 {
		t.Errorf("Value = %d, want 2", c.Value())
	}
}

func TestWorkers(t *testing.T) {
	var mu sync.Mutex
	sum := 0
	dep.Run(3, []int{1, 2, 3, 4}, func(j int) {
		mu.Lock()
		sum += j
		mu.Unlock()
	})
	if sum != 10 {
		t.Errorf("sum = %d, want 10", sum)
	}
}

func TestWhere(t *testing.T) {
	_, file, line, _ := runtime.Caller(0)
	fmt.Printf("here: %s:%d, there: %s\n", file, line, dep.Where())
}

func TestLoopVar(t *testing.T) {
	var fs []func() int
	for i := 0; i < 3; i++ {
		fs = append(fs, func() int { return i })
	}
	if fs[0]() != 3 {
		t.Errorf("the loop variable is per iteration: the module's go 1.21 was not kept")
	}
}
`
}

// weftTest runs weft test in dir and returns its exit code and output.
func weftTest(t *testing.T, dir string, args ...string) (int, string) {
	t.Helper()
	var out strings.Builder
	code, err := runTest(dir, append([]string{"-count=1"}, args...), &out, &out)
	if err != nil {
		t.Fatalf("weft test %v: %v\n%s", args, err, out.String())
	}
	return code, out.String()
}

// checkDependency runs app's tests in dir under weft test: the tests that
// pass under go test pass, go 1.21's loop variables are kept, and the bug
// inside the dependency is found, reported at the dependency's own file.
func checkDependency(t *testing.T, dir, depFile string) {
	t.Helper()
	before := snapshot(t, dir)
	if code, out := weftTest(t, dir, "-run", "TestWorkers|TestLoopVar", "./..."); code != 0 {
		t.Fatalf("weft test of the passing tests failed:\n%s", out)
	} else if !strings.Contains(out, "weft: 2 packages instrumented (1 in dependencies), 0 sites left alone, 0 packages skipped\n") {
		t.Errorf("summary: want 2 packages instrumented, 1 of them a dependency:\n%s", out)
	}
	code, out := weftTest(t, dir, "-run", "TestBug", "./...")
	if code == 0 || !strings.Contains(out, "Value = 1, want 2") {
		t.Fatalf("weft test did not find the lost update inside the dependency:\n%s", out)
	}
	if !regexp.MustCompile(`Mutex.Lock +` + regexp.QuoteMeta(filepath.Base(depFile)) + `:2[2-7]\n`).MatchString(out) {
		t.Errorf("the report does not name the dependency's file %s:\n%s", depFile, out)
	}
	// The running code sees the dependency's own file and line, and the
	// test's.
	_, out = weftTest(t, dir, "-v", "-run", "TestWhere", "./...")
	here := lineOf(appTest(""), "runtime.Caller(0)")
	there := lineOf(depModule["dep.go"], "runtime.Caller(0)")
	if want := fmt.Sprintf("here: %s:%d, there: %s:%d\n", filepath.Join(dir, "app_test.go"), here, depFile, there); !strings.Contains(out, want) {
		t.Errorf("the running code does not see the original files and lines (want %q):\n%s", want, out)
	}
	unchanged(t, dir, before)
}

// TestSetUpDependency: a module that does not require weft, with a go
// 1.21 go line, and a dependency in the module cache: weft test sets
// itself up without touching a file, keeps the module's language version,
// and runs the dependency's goroutines, channels and locks under control.
func TestSetUpDependency(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test")
	}
	e := newGoEnv(t)
	depDir := t.TempDir()
	writeTree(t, depDir, depModule)
	e.publish(t, depDir, "v1.0.0")
	app := t.TempDir()
	writeTree(t, app, map[string]string{
		"go.mod":      "module example.com/app\n\ngo 1.21\n\nrequire example.com/dep v1.0.0\n",
		"go.sum":      e.sums(t, "example.com/dep", "v1.0.0"),
		"app_test.go": appTest("example.com/dep"),
	})
	checkDependency(t, app, filepath.Join(e.modcache, "example.com", "dep@v1.0.0", "dep.go"))

	// Left out, the dependency's lock is Go's own: the controller cannot
	// interleave inside Inc, and the bug is out of reach.
	code, out := weftTest(t, app, "-v", "-run", "TestBug", "-instrument.skip=example.com/d...", "./...")
	if code != 0 {
		t.Errorf("with the dependency left out, TestBug failed:\n%s", out)
	}
	if !strings.Contains(out, "weft: skipped: example.com/dep: -instrument.skip\n") ||
		!strings.Contains(out, "weft: 1 package instrumented (0 in dependencies), 0 sites left alone, 1 package skipped") {
		t.Errorf("-instrument.skip: the package is not reported skipped:\n%s", out)
	}
	// -instrument takes it back.
	if code, out := weftTest(t, app, "-run", "TestBug", "-instrument.skip=example.com/...", "-instrument=./...,example.com/dep", "./..."); code == 0 {
		t.Errorf("-instrument did not take the skipped package back:\n%s", out)
	}
}

// TestSetUpUserWork: the user's own go.work, with a module it uses and a
// replace to a local directory: weft test keeps both, overlays the local
// dependency's files and leaves go.work and its sums alone.
func TestSetUpUserWork(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test")
	}
	newGoEnv(t)
	root := t.TempDir()
	files := map[string]string{
		"go.work":         "go 1.22\n\nuse ./app\n\nreplace example.com/dep => ./dep\n",
		"go.work.sum":     "",
		"app/go.mod":      "module example.com/app\n\ngo 1.21\n\nrequire example.com/dep v1.0.0\n",
		"app/app_test.go": appTest("example.com/dep"),
	}
	for name, content := range depModule {
		files["dep/"+name] = content
	}
	writeTree(t, root, files)
	checkDependency(t, filepath.Join(root, "app"), filepath.Join(root, "dep", "dep.go"))
	unchanged(t, root, snapshot(t, root))
}

// TestSetUpReplace: a replace in the user's go.mod to a local directory.
func TestSetUpReplace(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test")
	}
	newGoEnv(t)
	root := t.TempDir()
	files := map[string]string{
		"app/go.mod":      "module example.com/app\n\ngo 1.21\n\nrequire example.com/dep v1.0.0\n\nreplace example.com/dep => ../dep\n",
		"app/app_test.go": appTest("example.com/dep"),
	}
	for name, content := range depModule {
		files["dep/"+name] = content
	}
	writeTree(t, root, files)
	checkDependency(t, filepath.Join(root, "app"), filepath.Join(root, "dep", "dep.go"))
}

// TestSetUpVendor: a vendored module builds from vendor/, as go test does,
// without the module cache or a proxy, and its vendored dependency is
// instrumented.
func TestSetUpVendor(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test")
	}
	e := newGoEnv(t)
	depDir := t.TempDir()
	writeTree(t, depDir, depModule)
	e.publish(t, depDir, "v1.0.0")
	app := t.TempDir()
	writeTree(t, app, map[string]string{
		"go.mod":      "module example.com/app\n\ngo 1.21\n\nrequire example.com/dep v1.0.0\n",
		"go.sum":      e.sums(t, "example.com/dep", "v1.0.0"),
		"app_test.go": appTest("example.com/dep"),
	})
	if out, err := goCmd(app, "mod", "vendor"); err != nil {
		t.Fatalf("go mod vendor: %v\n%s", err, out)
	}
	// The dependency is now only in vendor/.
	for _, d := range []string{filepath.Join(e.proxy, "example.com"), filepath.Join(e.modcache, "example.com"), filepath.Join(e.modcache, "cache", "download", "example.com")} {
		if err := os.RemoveAll(d); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := goCmd(app, "test", "-count=1", "-run", "TestWorkers", "."); err != nil {
		t.Fatalf("go test from vendor/: %v\n%s", err, out)
	}
	checkDependency(t, app, filepath.Join(app, "vendor", "example.com", "dep", "dep.go"))
}

// lineOf returns the line of src that holds s.
func lineOf(src, s string) int {
	before, _, _ := strings.Cut(src, s)
	return strings.Count(before, "\n") + 1
}
