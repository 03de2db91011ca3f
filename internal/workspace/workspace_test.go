package workspace

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestUserWork: the user's go.work is merged with absolute paths, its
// replace of weft gives way to weft's source, its sums seed the
// workspace's, and the go line is the latest of all.
func TestUserWork(t *testing.T) {
	root, cache, weft := t.TempDir(), t.TempDir(), t.TempDir()
	t.Setenv("GOWORK", "")
	write(t, weft, map[string]string{"go.mod": "module github.com/weftdev/weft\n\ngo 1.26.0\n", "go.sum": "example.com/x v1.0.0 h1:abc=\n"})
	write(t, root, map[string]string{
		"go.work":     "go 1.22\n\nuse (\n\t./app\n\t./lib\n)\n\ngodebug panicnil=1\n\nreplace example.com/dep => ./dep\nreplace example.com/v v1.0.0 => example.com/w v1.1.0\nreplace github.com/weftdev/weft => ./oldweft\n",
		"go.work.sum": "example.com/y v1.0.0 h1:def=\n",
		"app/go.mod":  "module example.com/app\n\ngo 1.21\n",
		"lib/go.mod":  "module example.com/lib\n",
	})
	w, err := New(Config{Dir: filepath.Join(root, "app"), Cache: cache, Weft: weft})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(w.Modules, []string{filepath.Join(root, "app"), filepath.Join(root, "lib")}) {
		t.Errorf("modules %q", w.Modules)
	}
	data, err := os.ReadFile(w.File())
	if err != nil {
		t.Fatal(err)
	}
	work := string(data)
	for _, want := range []string{
		"go 1.26.0\n",
		"godebug panicnil=1\n",
		"\t" + filepath.Join(root, "app") + "\n",
		"\t" + filepath.Join(root, "lib") + "\n",
		"\texample.com/dep => " + filepath.Join(root, "dep") + "\n",
		"\texample.com/v v1.0.0 => example.com/w v1.1.0\n",
		"\tgithub.com/weftdev/weft => " + weft + "\n",
	} {
		if !strings.Contains(work, want) {
			t.Errorf("the go.work lacks %q:\n%s", want, work)
		}
	}
	if strings.Contains(work, "oldweft") {
		t.Errorf("the user's replace of weft is kept:\n%s", work)
	}
	if sums, _ := os.ReadFile(w.File() + ".sum"); string(sums) != "example.com/y v1.0.0 h1:def=\n" {
		t.Errorf("sums %q", sums)
	}
	shim, _ := os.ReadFile(filepath.Join(filepath.Dir(w.File()), "shim", "go.sum"))
	if string(shim) != "example.com/x v1.0.0 h1:abc=\n" {
		t.Errorf("the shim's sums are not weft's: %q", shim)
	}

	// The copies replace their modules, over a replace of the user's.
	run, err := w.WithCopies(map[string]string{"example.com/dep": "/cache/dep-copy"})
	if err != nil {
		t.Fatal(err)
	}
	data, _ = os.ReadFile(run)
	if !strings.Contains(string(data), "\texample.com/dep => /cache/dep-copy\n") || strings.Contains(string(data), filepath.Join(root, "dep")+"\n") {
		t.Errorf("the copy does not replace the module:\n%s", data)
	}
	// The same setup finds the same files.
	again, err := New(Config{Dir: filepath.Join(root, "app"), Cache: cache, Weft: weft})
	if err != nil || again.File() != w.File() {
		t.Errorf("a second setup wrote %s, not %s (%v)", again.File(), w.File(), err)
	}
}

func TestEnv(t *testing.T) {
	env := Env([]string{"HOME=/h", "GOWORK=off", "GOFLAGS=-mod=mod -buildvcs=false -modfile=x.mod -tags=a"}, "/c/run.work")
	want := []string{"HOME=/h", "GOWORK=/c/run.work", "GOFLAGS=-buildvcs=false -tags=a"}
	if !slices.Equal(env, want) {
		t.Errorf("got %q, want %q", env, want)
	}
	if m := ModFlag("-buildvcs=false --mod=vendor"); m != "vendor" {
		t.Errorf("ModFlag = %q", m)
	}
}

func TestMaxVersion(t *testing.T) {
	for _, c := range [][3]string{{"", "1.21", "1.21"}, {"1.21", "", "1.21"}, {"1.21", "1.26.0", "1.26.0"}, {"1.27rc1", "1.26.0", "1.27rc1"}, {"1.9", "1.10", "1.10"}} {
		if got := maxVersion(c[0], c[1]); got != c[2] {
			t.Errorf("maxVersion(%q, %q) = %q, want %q", c[0], c[1], got, c[2])
		}
	}
}

// TestVendor: a vendored module is rebuilt as modules of their own, with
// the go versions modules.txt records, each knowing the directory of
// vendor/ it comes from.
func TestVendor(t *testing.T) {
	root, cache, weft := t.TempDir(), t.TempDir(), t.TempDir()
	t.Setenv("GOWORK", "off")
	write(t, weft, map[string]string{"go.mod": "module github.com/weftdev/weft\n\ngo 1.26.0\n"})
	write(t, root, map[string]string{
		"go.mod": "module example.com/app\n\ngo 1.21\n",
		"vendor/modules.txt": "# example.com/a v1.2.0\n## explicit; go 1.18\nexample.com/a\nexample.com/a/sub\n" +
			"# example.com/b v0.1.0 => ../b\n## explicit\nexample.com/b\n# example.com/c v1.0.0\n## explicit; go 1.20\n",
		"vendor/example.com/a/a.go":       "package a\n",
		"vendor/example.com/a/sub/sub.go": "package sub\n",
		"vendor/example.com/a/LICENSE":    "license\n",
		"vendor/example.com/b/b.go":       "package b\n",
	})
	w, err := New(Config{Dir: root, Cache: cache, Weft: weft})
	if err != nil {
		t.Fatal(err)
	}
	if !w.Vendor {
		t.Fatal("not vendored")
	}
	data, _ := os.ReadFile(w.File())
	work := string(data)
	for mod, want := range map[string]string{"example.com/a v1.2.0": "go 1.18", "example.com/b v0.1.0": "", "example.com/c v1.0.0": "go 1.20"} {
		i := strings.Index(work, "\t"+mod+" => ")
		if i < 0 {
			t.Errorf("%s is not replaced:\n%s", mod, work)
			continue
		}
		dir := strings.TrimSpace(strings.SplitN(work[i:], "=> ", 2)[1])
		dir, _, _ = strings.Cut(dir, "\n")
		gomod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err != nil || !strings.Contains(string(gomod), want) {
			t.Errorf("%s: go.mod %q, want %q (%v)", mod, gomod, want, err)
		}
		if mod == "example.com/a v1.2.0" {
			src, err := os.ReadFile(filepath.Join(dir, "sub", "sub.go"))
			if err != nil || string(src) != "package sub\n" {
				t.Errorf("sub.go: %q %v", src, err)
			}
			if got, want := w.Origin(dir), filepath.Join(root, "vendor", "example.com", "a"); got != want {
				t.Errorf("Origin = %q, want %q", got, want)
			}
			if lic, err := os.ReadFile(filepath.Join(dir, "LICENSE")); err != nil || string(lic) != "license\n" {
				t.Errorf("LICENSE: %q %v", lic, err)
			}
		}
	}
	// -mod=mod leaves vendor/ alone, as go does.
	if w, err := New(Config{Dir: root, Cache: cache, Weft: weft, Mod: "mod"}); err != nil || w.Vendor {
		t.Errorf("-mod=mod vendored (%v)", err)
	}
}
