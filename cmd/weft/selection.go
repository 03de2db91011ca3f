package main

import (
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"golang.org/x/tools/go/packages"

	"github.com/weftdev/weft/internal/workspace"
)

// A selection is what weft test instruments: by default the tested
// packages and every package they import, from the user's modules, the
// module cache or vendor/, except the standard library, weft's own module
// and the modules weft's runtime imports (which must not run under the
// controller they implement). -instrument.skip leaves packages or files
// out; -instrument takes packages back in.
type selection struct {
	instrumented map[string]bool // import paths
	local        map[string]bool // those of them in the user's modules
	skipped      []string        // packages left out: path: why
	skip, keep   []pattern
}

// choose loads the import graph of the tested packages (names, imports and
// modules only: no syntax) and of weft's runtime, and picks the packages
// to instrument.
func choose(cfg packages.Config, a testArgs) (*selection, error) {
	cfg.Mode = packages.NeedName | packages.NeedImports | packages.NeedDeps | packages.NeedModule | packages.NeedFiles
	keep, err := parsePatterns(a.instrument, cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("-instrument: %w", err)
	}
	skip, err := parsePatterns(a.skip, cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("-instrument.skip: %w", err)
	}
	var (
		wg         sync.WaitGroup
		runtime    []*packages.Package
		runtimeErr error
	)
	wg.Go(func() { runtime, runtimeErr = packages.Load(&cfg, weftRuntime...) })
	tcfg := cfg
	tcfg.Tests = true
	roots, err := packages.Load(&tcfg, a.patterns...)
	wg.Wait()
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", strings.Join(a.patterns, " "), err)
	}
	if runtimeErr != nil {
		return nil, fmt.Errorf("loading weft's runtime: %w", runtimeErr)
	}
	shared := map[string]bool{workspace.WeftModule: true}
	packages.Visit(runtime, nil, func(p *packages.Package) {
		if p.Module != nil {
			shared[p.Module.Path] = true
		}
	})
	sel := &selection{instrumented: map[string]bool{}, local: map[string]bool{}, skip: skip, keep: keep}
	left := map[string]string{}
	visit(roots, func(p *packages.Package) {
		path := strings.TrimSuffix(p.PkgPath, "_test")
		switch {
		case p.Module == nil || strings.HasSuffix(p.ID, ".test"):
			// The standard library, and the test binaries' main packages.
		case shared[p.Module.Path]:
			if p.Module.Path != workspace.WeftModule {
				left[path] = "weft's runtime uses module " + p.Module.Path + ", which must run as it is"
			}
		case sel.skipsPackage(p):
			left[path] = "-instrument.skip"
		default:
			sel.instrumented[path] = true
			if p.Module.Main {
				sel.local[path] = true
			}
		}
	})
	for path, why := range left {
		if !sel.instrumented[path] {
			sel.skipped = append(sel.skipped, path+": "+why)
		}
	}
	sort.Strings(sel.skipped)
	return sel, nil
}

// visit calls f on each package of the graph, once, but not on those
// only weft's own packages import: a test that uses weft directly sees
// weft's runtime as it is.
func visit(roots []*packages.Package, f func(*packages.Package)) {
	seen := map[*packages.Package]bool{}
	var walk func(p *packages.Package)
	walk = func(p *packages.Package) {
		if seen[p] {
			return
		}
		seen[p] = true
		f(p)
		if p.Module != nil && p.Module.Path == workspace.WeftModule {
			return
		}
		for _, imp := range p.Imports {
			walk(imp)
		}
	}
	for _, r := range roots {
		walk(r)
	}
}

// skipsPackage reports whether the options leave a whole package out.
func (s *selection) skipsPackage(p *packages.Package) bool {
	for _, k := range s.keep {
		if k.file == "" && k.matchPackage(p) {
			return false
		}
	}
	for _, sk := range s.skip {
		if sk.file == "" && sk.matchPackage(p) {
			return true
		}
	}
	return false
}

// skipsFile reports whether the options leave a file of a package out.
func (s *selection) skipsFile(p *packages.Package, file string) bool {
	for _, sk := range s.skip {
		if sk.file != "" && sk.matchPackage(p) {
			if ok, _ := filepath.Match(sk.file, filepath.Base(file)); ok {
				return true
			}
		}
	}
	return false
}

// A pattern of -instrument and -instrument.skip: a comma-separated list of
// package patterns as go's ("example.com/lib/...", "./internal/...": "..."
// matches any string, and "x/..." matches x too; a pattern that starts with
// "./" or "../" names directories, relative to the directory weft test runs
// in), each optionally ending in a file name glob ("./cache/*_gen.go",
// "example.com/lib/pool.go", or "*_string.go" alone for a file of any
// package), which names files instead of packages.
type pattern struct {
	pkg  *regexp.Regexp // matches the import path, or the directory if dir
	dir  bool
	file string // a base name glob, for a file pattern
}

func parsePatterns(list []string, wd string) ([]pattern, error) {
	var out []pattern
	for _, s := range list {
		p, err := parsePattern(s, wd)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

func parsePattern(s, wd string) (pattern, error) {
	var p pattern
	pkg := s
	if strings.HasSuffix(s, ".go") {
		pkg, p.file = path.Split(s)
		if _, err := filepath.Match(p.file, ""); err != nil {
			return p, fmt.Errorf("%s: %w", s, err)
		}
		pkg = strings.TrimSuffix(pkg, "/")
		if pkg == "" {
			pkg = "..."
		}
	}
	if pkg == "." || pkg == ".." || strings.HasPrefix(pkg, "./") || strings.HasPrefix(pkg, "../") {
		abs, err := filepath.Abs(filepath.Join(wd, filepath.FromSlash(pkg)))
		if err != nil {
			return p, err
		}
		pkg, p.dir = filepath.ToSlash(abs), true
	}
	p.pkg = matchPattern(pkg)
	return p, nil
}

// matchPattern compiles a go package pattern, as cmd/go's: "..." matches
// any string; a trailing "/..." matches the empty string too.
func matchPattern(pattern string) *regexp.Regexp {
	re := regexp.QuoteMeta(pattern)
	re = strings.ReplaceAll(re, `\.\.\.`, `.*`)
	if strings.HasSuffix(re, `/.*`) {
		re = strings.TrimSuffix(re, `/.*`) + `(/.*)?`
	}
	return regexp.MustCompile(`^` + re + `$`)
}

func (p pattern) matchPackage(pkg *packages.Package) bool {
	if p.dir {
		return pkg.Dir != "" && p.pkg.MatchString(filepath.ToSlash(pkg.Dir))
	}
	return p.pkg.MatchString(strings.TrimSuffix(pkg.PkgPath, "_test"))
}
