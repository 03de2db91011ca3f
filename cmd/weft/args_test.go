package main

import (
	"reflect"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

func TestParseTestArgs(t *testing.T) {
	t.Setenv("GOFLAGS", "")
	a, err := parseTestArgs([]string{"-run", "TestX", "-v", "-explore", "-instrument=./lib/...", "-count=1", "./pkg", "-tags", "integration",
		"-instrument.skip", "example.com/a/...,*_gen.go", "-mod=vendor", "./other"})
	if err != nil {
		t.Fatal(err)
	}
	want := testArgs{
		instrument: []string{"./lib/..."},
		skip:       []string{"example.com/a/...", "*_gen.go"},
		verbose:    true,
		mod:        "vendor",
		goArgs:     []string{"-run", "TestX", "-v", "-explore", "-count=1", "-tags", "integration"},
		patterns:   []string{"./pkg", "./other"},
	}
	if !reflect.DeepEqual(a, want) {
		t.Errorf("got %+v\nwant %+v", a, want)
	}
	if got := buildFlags(a.goArgs); !reflect.DeepEqual(got, []string{"-tags", "integration"}) {
		t.Errorf("buildFlags = %q", got)
	}
	if a, _ := parseTestArgs(nil); !reflect.DeepEqual(a.patterns, []string{"."}) {
		t.Errorf("default patterns %q", a.patterns)
	}
	for _, bad := range [][]string{{"-instrument"}, {"-instrument.skip"}, {"-modfile=alt.mod"}, {"-mod=bogus"}} {
		if _, err := parseTestArgs(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	// -mod comes from GOFLAGS when the command line has none.
	t.Setenv("GOFLAGS", "-buildvcs=false -mod=mod")
	if a, _ := parseTestArgs(nil); a.mod != "mod" {
		t.Errorf("-mod from GOFLAGS: got %q", a.mod)
	}
}

func TestPatterns(t *testing.T) {
	pkg := func(path, dir string) *packages.Package { return &packages.Package{PkgPath: path, Dir: dir} }
	cases := []struct {
		pattern string
		pkg     *packages.Package
		file    string // "" for a package pattern
		want    bool
	}{
		{"example.com/lib/...", pkg("example.com/lib", "/m/lib"), "", true},
		{"example.com/lib/...", pkg("example.com/lib/pool", "/m/lib/pool"), "", true},
		{"example.com/lib/...", pkg("example.com/library", "/m/library"), "", false},
		{"example.com/l...", pkg("example.com/library", "/m/library"), "", true},
		{"example.com/lib", pkg("example.com/lib_test", "/m/lib"), "", true},
		{"./internal/...", pkg("example.com/m/internal/x", "/work/internal/x"), "", true},
		{"./internal/...", pkg("example.com/m/internalx", "/work/internalx"), "", false},
		{".", pkg("example.com/m", "/work"), "", true},
		{"../other", pkg("example.com/other", "/other"), "", true},
		{"*_gen.go", pkg("example.com/any", "/any"), "/any/x_gen.go", true},
		{"*_gen.go", pkg("example.com/any", "/any"), "/any/gen.go", false},
		{"./cache/pool.go", pkg("example.com/m/cache", "/work/cache"), "/work/cache/pool.go", true},
		{"./cache/pool.go", pkg("example.com/m/cache", "/work/cache"), "/work/cache/lru.go", false},
		{"example.com/lib/*.go", pkg("example.com/lib", "/m/lib"), "/m/lib/a.go", true},
		{"example.com/lib/*.go", pkg("example.com/lib/sub", "/m/lib/sub"), "/m/lib/sub/a.go", false},
	}
	for _, c := range cases {
		p, err := parsePattern(c.pattern, "/work")
		if err != nil {
			t.Fatalf("%s: %v", c.pattern, err)
		}
		s := &selection{skip: []pattern{p}}
		var got bool
		if c.file == "" {
			got = s.skipsPackage(c.pkg)
		} else {
			got = !s.skipsPackage(c.pkg) && s.skipsFile(c.pkg, c.file)
		}
		if got != c.want {
			t.Errorf("%q on %s %s: got %v, want %v", c.pattern, c.pkg.PkgPath, c.file, got, c.want)
		}
	}
	if _, err := parsePattern("[.go", "/work"); err == nil || !strings.Contains(err.Error(), "[.go") {
		t.Errorf("a bad glob: %v", err)
	}
}
