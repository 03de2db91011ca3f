package instrument_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"

	"github.com/weftdev/weft/instrument"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// weftRoot is the checkout of weft, for the replace directive of scratch
// modules.
func weftRoot(t *testing.T) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(file))
}

// scratch copies testdata/<name> into a module of its own, in a workspace
// with this checkout of weft, and returns its directory. The module's go
// version is 1.26, or the one a "goversion" file of the case names: the
// workspace leaves it as it is.
func scratch(t *testing.T, name string) string {
	t.Helper()
	dir := t.TempDir()
	version := "1.26"
	if v, err := os.ReadFile(filepath.Join("testdata", name, "goversion")); err == nil {
		version = strings.TrimSpace(string(v))
	}
	mod := "module example.com/" + name + "\n\ngo " + version + "\n"
	must(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte(mod), 0o644))
	work := "go 1.26.0\n\nuse (\n\t.\n\t" + weftRoot(t) + "\n)\n"
	must(t, os.WriteFile(filepath.Join(dir, "go.work"), []byte(work), 0o644))
	// Golden files are not copied.
	src := os.DirFS(filepath.Join("testdata", name))
	err := fs.WalkDir(src, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		data, err := fs.ReadFile(src, path)
		if err != nil {
			return err
		}
		must(t, os.MkdirAll(filepath.Join(dir, filepath.Dir(path)), 0o755))
		return os.WriteFile(filepath.Join(dir, path), data, 0o644)
	})
	must(t, err)
	return dir
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// instrumented says which packages of a case's module are rewritten: the
// case's own package, and its subdirectories whose name starts with
// "instr" (the others are code weft does not instrument).
func instrumented(name string) func(string) bool {
	return func(path string) bool {
		rest, ok := strings.CutPrefix(path, "example.com/"+name)
		return ok && (rest == "" || strings.HasPrefix(rest, "/instr"))
	}
}

// rewrite loads the scratch module's packages with their tests, and
// weft's runtime, and rewrites them.
func rewrite(t *testing.T, name, dir string) *instrument.Result {
	t.Helper()
	res, err := instrument.Rewrite(load(t, dir), instrument.Config{Instrument: instrumented(name)})
	must(t, err)
	return res
}

// load loads the scratch module's packages with their tests, and weft's
// runtime.
func load(t *testing.T, dir string) []*packages.Package {
	t.Helper()
	cfg := &packages.Config{
		Mode:  instrument.LoadMode,
		Dir:   dir,
		Tests: true,
		Env:   append(os.Environ(), "GOFLAGS="),
	}
	pkgs, err := packages.Load(cfg, append([]string{"./..."}, instrument.RuntimePackages...)...)
	must(t, err)
	return pkgs
}

// TestGolden rewrites each package of testdata and compares the result
// with its golden files; the rewrite keeps every line where it was.
func TestGolden(t *testing.T) {
	for _, name := range cases(t) {
		t.Run(name, func(t *testing.T) {
			dir := scratch(t, name)
			res := rewrite(t, name, dir)
			for path, src := range res.Files {
				rel, err := filepath.Rel(dir, path)
				must(t, err)
				golden := filepath.Join("testdata", name, rel+".golden")
				// The line directive names the scratch copy.
				src := bytes.ReplaceAll(src, []byte(dir+string(filepath.Separator)), []byte("$DIR/"))
				if *update {
					must(t, os.WriteFile(golden, src, 0o644))
				}
				want, err := os.ReadFile(golden)
				must(t, err)
				if !bytes.Equal(src, want) {
					t.Errorf("%s: rewrite differs from %s:\n%s", rel, golden, src)
				}
				orig, err := os.ReadFile(path)
				must(t, err)
				if a, b := lines(orig), lines(res.Files[path]); a != b {
					t.Errorf("%s: %d lines rewritten to %d", rel, a, b)
				}
			}
			goldens, _ := filepath.Glob(filepath.Join("testdata", name, "*.golden"))
			sub, _ := filepath.Glob(filepath.Join("testdata", name, "*", "*.golden"))
			if n := len(goldens) + len(sub); n != len(res.Files) {
				t.Errorf("%d files rewritten, %d golden files", len(res.Files), n)
			}
			for _, s := range res.Skips {
				t.Logf("left alone: %s", s)
			}
			for _, p := range res.Packages {
				if p.Whole != "" {
					t.Errorf("%s left whole: %s", p.ID, p.Whole)
				}
			}
		})
	}
}

// TestRecheckedImport checks again a package whose rewrite is the same
// (a decision about its files changed nothing), and a package that uses
// it and an alias of its types that another package declares (protobuf's
// protoreflect, descriptorpb and protoiface): the types of the package
// checked again are new objects, so what imports it, directly or not, is
// checked again too, and the aliases stay identical. Before, descriptorpb
// did not check against protoiface's stale types, and weft test stopped.
func TestRecheckedImport(t *testing.T) {
	dir := scratch(t, "aliases")
	res, err := instrument.RewriteRechecking(load(t, dir), instrument.Config{Instrument: instrumented("aliases")},
		"example.com/aliases/instrr", "example.com/aliases")
	must(t, err)
	for _, p := range res.Packages {
		if p.Whole != "" {
			t.Errorf("%s left whole: %s", p.ID, p.Whole)
		}
	}
	if len(res.Files) != 2 {
		t.Errorf("%d files rewritten, want instrr's and instrimpl's", len(res.Files))
	}
}

// lines counts a file's lines, from its package clause on: a file that
// gains a build constraint gains two lines above it.
func lines(src []byte) int {
	if !bytes.HasPrefix(src, []byte("package ")) {
		if i := bytes.Index(src, []byte("\npackage ")); i >= 0 {
			src = src[i+1:]
		}
	}
	return bytes.Count(src, []byte("\n"))
}

func cases(t *testing.T) []string {
	entries, err := os.ReadDir("testdata")
	must(t, err)
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out
}

// TestRun builds and runs the tests of each package of testdata that has
// tests, rewritten, under go test -overlay with a short exploration: they
// pass, and each test explored under weft's controller (weft logs its
// executions).
func TestRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test")
	}
	for _, name := range cases(t) {
		tests, _ := filepath.Glob(filepath.Join("testdata", name, "*_test.go"))
		if len(tests) == 0 {
			continue
		}
		t.Run(name, func(t *testing.T) {
			dir := scratch(t, name)
			res := rewrite(t, name, dir)
			out, err := goTest(t, dir, res, "-v", "-count=1", ".", "-explore", "-explore.iters", "20", "-explore.seed", "1")
			if want, rerr := os.ReadFile(filepath.Join("testdata", name, "want")); rerr == nil {
				// A case that fails, with the lines its report must hold (and
				// must not, after a "!").
				for _, w := range strings.Split(strings.TrimSpace(string(want)), "\n") {
					if w == "FAIL" {
						if err == nil {
							t.Error("go test passed")
						}
					} else if not, ok := strings.CutPrefix(w, "!"); ok {
						if regexp.MustCompile(not).MatchString(out) {
							t.Errorf("a match for %q", not)
						}
					} else if !regexp.MustCompile(w).MatchString(out) {
						t.Errorf("no match for %q", w)
					}
				}
			} else {
				if err != nil {
					t.Fatalf("go test of the rewritten package: %v\n%s", err, out)
				}
				// Each test that passed explored under the controller, but
				// those that keep running as go test runs them.
				passed := regexp.MustCompile(`(?m)^--- PASS: Test`).FindAllString(out, -1)
				explored := strings.Count(out, "weft: no failure in 20 executions")
				plain := 0
				for _, s := range res.Skips {
					if s.What == "test" {
						plain++
					}
				}
				if len(passed) == 0 || explored != len(passed)-plain {
					t.Errorf("%d tests passed, %d explored under weft's controller, %d run as go test runs them", len(passed), explored, plain)
				}
			}
			if t.Failed() {
				t.Logf("go test output:\n%s", out)
			}
		})
	}
}

// goTest runs go test in dir with an overlay of the rewritten files.
func goTest(t *testing.T, dir string, res *instrument.Result, args ...string) (string, error) {
	t.Helper()
	replace := map[string]string{}
	tmp := t.TempDir()
	for path, src := range res.Files {
		name := filepath.Join(tmp, "weftoverlay-"+strings.ReplaceAll(strings.TrimPrefix(path, dir), string(filepath.Separator), "_"))
		must(t, os.WriteFile(name, src, 0o644))
		replace[path] = name
	}
	data, err := json.Marshal(struct{ Replace map[string]string }{replace})
	must(t, err)
	overlay := filepath.Join(tmp, "overlay.json")
	must(t, os.WriteFile(overlay, data, 0o644))
	cmd := exec.Command("go", append([]string{"test", "-overlay=" + overlay}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=")
	b, err := cmd.CombinedOutput()
	return string(b), err
}

// TestLoads rewrites a module loaded in two calls, as weft test does (the
// tested package with its tests and weft's runtime, then the other
// package to instrument without tests, which the first load read from
// export data), and in one: the rewrites are the same.
func TestLoads(t *testing.T) {
	dir := scratch(t, "helpers")
	one := rewrite(t, "helpers", dir)
	fset := token.NewFileSet()
	cfg := &packages.Config{Mode: instrument.LoadMode, Dir: dir, Env: append(os.Environ(), "GOFLAGS="), Fset: fset, Tests: true}
	first, err := packages.Load(cfg, append([]string{"."}, instrument.RuntimePackages...)...)
	must(t, err)
	cfg.Tests = false
	second, err := packages.Load(cfg, "./instrhelp")
	must(t, err)
	two, err := instrument.Rewrite(append(first, second...), instrument.Config{Instrument: instrumented("helpers")})
	must(t, err)
	if len(two.Files) != len(one.Files) {
		t.Fatalf("%d files rewritten from two loads, %d from one", len(two.Files), len(one.Files))
	}
	for path, src := range one.Files {
		if !bytes.Equal(two.Files[path], src) {
			t.Errorf("%s: rewritten differently from two loads:\n%s", path, two.Files[path])
		}
	}
	// Loads with different file sets cannot be mixed.
	cfg.Fset = nil
	third, err := packages.Load(cfg, "./instrhelp")
	must(t, err)
	if _, err := instrument.Rewrite(append(first, third...), instrument.Config{Instrument: instrumented("helpers")}); err == nil {
		t.Error("no error for loads with different file sets")
	}
}

// TestLeaveFile leaves a file out: the rest of its package is rewritten
// around it, and still type-checks.
func TestLeaveFile(t *testing.T) {
	dir := scratch(t, "named")
	res, err := instrument.Rewrite(load(t, dir), instrument.Config{
		Instrument: instrumented("named"),
		LeaveFile: func(path string) string {
			if filepath.Base(path) == "named_test.go" {
				return "left out"
			}
			return ""
		},
	})
	must(t, err)
	if _, ok := res.Files[filepath.Join(dir, "named_test.go")]; ok {
		t.Error("the file left out was rewritten")
	}
	if _, ok := res.Files[filepath.Join(dir, "named.go")]; !ok {
		t.Error("the other file was not rewritten")
	}
	for _, p := range res.Packages {
		if p.Whole != "" {
			t.Errorf("%s left whole: %s", p.ID, p.Whole)
		}
	}
}

// TestLeaveFileContext leaves out a file whose function takes a context:
// the rest of the package hands it a standard one, as to code weft does
// not instrument, and is rewritten.
func TestLeaveFileContext(t *testing.T) {
	dir := scratch(t, "ctxiface")
	res, err := instrument.Rewrite(load(t, dir), instrument.Config{
		Instrument: instrumented("ctxiface"),
		LeaveFile: func(path string) string {
			if filepath.Base(path) == "left.go" {
				return "left out"
			}
			return ""
		},
	})
	must(t, err)
	for _, p := range res.Packages {
		if p.Whole != "" {
			t.Errorf("%s left whole: %s", p.ID, p.Whole)
		}
	}
	if src := res.Files[filepath.Join(dir, "ctxiface.go")]; !bytes.Contains(src, []byte("left(weftctx.ToStd(ctx))")) {
		t.Errorf("the call of left does not convert its context:\n%s", src)
	}
}
