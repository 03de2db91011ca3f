package instrument_test

import (
	"bytes"
	"flag"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
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

// scratch copies testdata/<name> into a module of its own and returns its
// directory.
func scratch(t *testing.T, name string) string {
	t.Helper()
	dir := t.TempDir()
	root := weftRoot(t)
	mod := "module example.com/" + name + "\n\ngo 1.26\n\nrequire github.com/weftdev/weft v0.0.0\n\nreplace github.com/weftdev/weft => " + root + "\n"
	must(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte(mod), 0o644))
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	must(t, err)
	must(t, os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644))
	// Subdirectories are packages weft does not instrument, for the
	// boundaries; golden files are not copied.
	src := os.DirFS(filepath.Join("testdata", name))
	err = fs.WalkDir(src, ".", func(path string, d fs.DirEntry, err error) error {
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

// rewrite loads the scratch package with its tests and rewrites it,
// returning the rewritten files by base name and the skips.
func rewrite(t *testing.T, dir string) (map[string][]byte, []instrument.Skip) {
	t.Helper()
	cfg := &packages.Config{
		Mode:  packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo | packages.NeedModule | packages.NeedImports,
		Dir:   dir,
		Tests: true,
		Env:   append(os.Environ(), "GOFLAGS=-mod=mod"),
	}
	pkgs, err := packages.Load(cfg, "./...")
	must(t, err)
	out := map[string][]byte{}
	var skips []instrument.Skip
	for _, p := range pkgs {
		if strings.HasSuffix(p.ID, ".test") || strings.Count(strings.TrimSuffix(p.PkgPath, "_test"), "/") > 1 {
			continue // the generated test main, and the packages not instrumented
		}
		res, err := instrument.Package(p, instrument.Config{})
		must(t, err)
		for _, f := range res.Files {
			out[filepath.Base(f.Path)] = f.Source
		}
		skips = append(skips, res.Skips...)
	}
	return out, skips
}

func TestGolden(t *testing.T) {
	cases, err := os.ReadDir("testdata")
	must(t, err)
	for _, c := range cases {
		if !c.IsDir() {
			continue
		}
		t.Run(c.Name(), func(t *testing.T) {
			dir := scratch(t, c.Name())
			files, skips := rewrite(t, dir)
			for name, src := range files {
				golden := filepath.Join("testdata", c.Name(), name+".golden")
				if *update {
					must(t, os.WriteFile(golden, src, 0o644))
				}
				want, err := os.ReadFile(golden)
				must(t, err)
				if !bytes.Equal(src, want) {
					t.Errorf("%s: rewrite differs from %s:\n%s", name, golden, src)
				}
				orig, err := os.ReadFile(filepath.Join(dir, name))
				must(t, err)
				if a, b := bytes.Count(orig, []byte("\n")), bytes.Count(src, []byte("\n")); a != b {
					t.Errorf("%s: %d lines rewritten to %d", name, a, b)
				}
				must(t, os.WriteFile(filepath.Join(dir, name), src, 0o644))
			}
			for _, s := range skips {
				t.Logf("left alone: %s", s)
			}
			// The rewritten package type-checks and vets clean.
			cmd := exec.Command("go", "vet", "./...")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("go vet of the rewritten package: %v\n%s", err, out)
			}
		})
	}
}
