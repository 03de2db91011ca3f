package instrument

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"slices"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"
)

// Rewrite rewrites the packages of a loaded graph that cfg.Instrument
// names, in dependency order, with the safety net: each rewritten package
// is type-checked against the rewritten versions of the packages it
// imports (and weft's runtime, and the original types of the others)
// before anything is returned; a site whose rewrite does not type-check is
// left alone, reported as a Skip, and the package rewritten again. A
// package that imports a rewritten one without being rewritten itself is
// checked too, as it is: when it does not build against its rewritten
// imports, the values it shares with them keep Go's types there.
//
// roots are packages loaded with packages.Load in mode LoadMode (see
// there for several loads): the first load, with Tests for the test
// files, also loads RuntimePackages, so that weft's runtime shares the
// standard library's types with the code being rewritten. Every package
// reachable from roots is considered; those cfg.Instrument names are
// rewritten if they were loaded with syntax. weft test calls it so:
//
//	cfg := packages.Config{Mode: instrument.LoadMode, Fset: token.NewFileSet(), Tests: true}
//	pkgs, _ := packages.Load(&cfg, append(patterns, instrument.RuntimePackages...)...)
//	cfg.Tests = false
//	deps, _ := packages.Load(&cfg, otherPackagesToInstrument...)
//	res, _ := instrument.Rewrite(append(pkgs, deps...), instrument.Config{Instrument: chosen})
//	// res.Files: the overlay; res.Skips: what -v lists; res.Packages: what was left whole
//
// Rewrite returns an error only for what it cannot handle at all: a graph
// without weft's runtime, loads with different file sets, a package that
// does not build even as it is against the packages it imports.
func Rewrite(roots []*packages.Package, cfg Config) (*Result, error) {
	g, err := newGraph(roots, cfg)
	if err != nil {
		return nil, err
	}
	if err := g.settle(); err != nil {
		return nil, err
	}
	return g.result(), nil
}

// settle rewrites and checks the stale packages, pass after pass, until a
// pass finds none and the variants of each package agree.
func (g *graph) settle() error {
	for pass := 0; ; pass++ {
		if pass == maxPasses {
			return fmt.Errorf("instrument: the rewrite did not settle in %d passes", maxPasses)
		}
		redone := false
		for _, p := range g.order {
			if !g.stale(p) {
				continue
			}
			redone = true
			if err := g.process(p); err != nil {
				return err
			}
		}
		if !redone && g.consistent() {
			return nil
		}
	}
}

const (
	maxPasses = 20 // over the whole graph; decisions only grow, a pass without any ends it
	maxTries  = 30 // per package and pass, before it is left whole
)

// graph is the state of one Rewrite.
type graph struct {
	cfg      Config
	fset     *token.FileSet
	byID     map[string]*packages.Package // the first loaded, whose types count
	src      map[string]*packages.Package // one loaded with syntax and type information, by ID
	order    []*packages.Package          // the packages rewritten or checked, dependencies first
	runtime  map[string]*packages.Package
	excluded map[string]bool // import paths never instrumented: weft's runtime and what it imports
	instr    map[string]bool // by ID
	affected map[string]bool // by ID: instrumented, or importing one that is
	dec      *decisions
	out      map[string]*outcome // by ID
	sources  map[string][]byte   // original sources, by path
	parsed   map[string][]*ast.File
	universe map[string]*types.Package // the packages the rewrite does not change, by ID (see typesOf)
	imports  map[string]*types.Package // the same, by path, for the export data reader
	// rewritten maps the files parsed from rewrites to them, to trace a
	// position in one back to the original.
	rewritten map[*token.File]*fileResult
}

// outcome is the last rewrite of a package variant.
type outcome struct {
	types    *types.Package
	files    map[string][]byte // rewritten sources, by path
	skips    []Skip
	whole    string
	errs     []error     // type errors left, if any
	info     *types.Info // of the check, for a package not rewritten
	versions map[string]int
	imports  map[string]*types.Package // affected imports' checked types when processed, by ID
}

func newGraph(roots []*packages.Package, cfg Config) (*graph, error) {
	g := &graph{
		cfg:      cfg,
		byID:     map[string]*packages.Package{},
		src:      map[string]*packages.Package{},
		runtime:  map[string]*packages.Package{},
		excluded: map[string]bool{},
		instr:    map[string]bool{},
		affected: map[string]bool{},
		dec:      newDecisions(),
		out:      map[string]*outcome{},
		sources:  map[string][]byte{},
		parsed:   map[string][]*ast.File{},
		universe: map[string]*types.Package{},
		imports:  map[string]*types.Package{},

		rewritten: map[*token.File]*fileResult{},
	}
	all, err := g.collect(roots)
	if err != nil {
		return nil, err
	}
	g.shareTestVariantSyntax(all)
	g.choose(all)
	g.orderAffected(all)
	return g, nil
}

// collect visits the loaded graph: the packages by ID (the first load of
// each), those with syntax, and weft's runtime.
func (g *graph) collect(roots []*packages.Package) ([]*packages.Package, error) {
	var all []*packages.Package
	var fsetErr error
	packages.Visit(roots, nil, func(p *packages.Package) {
		if g.fset == nil {
			g.fset = p.Fset
		} else if p.Fset != nil && p.Fset != g.fset && fsetErr == nil {
			fsetErr = fmt.Errorf("instrument: %s was loaded with another token.FileSet: pass the same packages.Config.Fset to every load", p.ID)
		}
		if g.src[p.ID] == nil && hasSyntax(p) {
			g.src[p.ID] = p
		}
		if g.byID[p.ID] != nil {
			return // loaded twice: the first is the one whose types count
		}
		g.byID[p.ID] = p
		all = append(all, p)
		for _, rp := range RuntimePackages {
			if p.PkgPath == rp && !strings.Contains(p.ID, " [") {
				g.runtime[rp] = p
			}
		}
	})
	if fsetErr != nil {
		return nil, fsetErr
	}
	for _, rp := range RuntimePackages {
		if g.runtime[rp] == nil || g.runtime[rp].Types == nil {
			return nil, fmt.Errorf("instrument: %s is not in the loaded graph: load instrument.RuntimePackages along with the packages to rewrite", rp)
		}
	}
	return all, nil
}

// shareTestVariantSyntax gives a test variant of a package (p [q.test])
// loaded without syntax the syntax of the package itself, whose files it
// has.
func (g *graph) shareTestVariantSyntax(all []*packages.Package) {
	for _, p := range all {
		if g.src[p.ID] != nil {
			continue
		}
		if base, _, ok := strings.Cut(p.ID, " ["); ok {
			if b := g.src[base]; b != nil && slices.Equal(b.CompiledGoFiles, p.CompiledGoFiles) {
				g.src[p.ID] = b
			}
		}
	}
}

// choose decides which packages are rewritten: none that weft's runtime
// imports, and of the others those the configuration names, less the
// files it leaves out.
func (g *graph) choose(all []*packages.Package) {
	var exclude func(p *packages.Package)
	exclude = func(p *packages.Package) {
		if g.excluded[p.PkgPath] {
			return
		}
		g.excluded[p.PkgPath] = true
		for _, q := range p.Imports {
			exclude(q)
		}
	}
	for _, p := range g.runtime {
		exclude(p)
	}
	for _, p := range all {
		g.instr[p.ID] = g.instrumentable(p)
		if g.instr[p.ID] && g.cfg.LeaveFile != nil {
			for _, f := range p.CompiledGoFiles {
				if why := g.cfg.LeaveFile(f); why != "" {
					g.dec.addWhole(f, why)
				}
			}
		}
	}
}

// orderAffected lists, dependencies first, the packages of modules that
// are rewritten or import one that is: those the rewrite must check, but
// for those that do not load and those that import one, directly or not,
// which go test reports as failing to build (samber/lo's tests name an
// identifier that its module leaves out, and open-feature's external
// tests import such a package).
func (g *graph) orderAffected(all []*packages.Package) {
	var visit func(p *packages.Package) bool
	done := map[string]bool{}
	broken := map[string]bool{}
	visit = func(p *packages.Package) bool {
		if done[p.ID] {
			return g.affected[p.ID]
		}
		done[p.ID] = true
		a := g.instr[p.ID]
		broken[p.ID] = len(p.Errors) > 0
		for _, path := range sortedKeys(p.Imports) {
			q := p.Imports[path]
			if visit(q) {
				a = true
			}
			broken[p.ID] = broken[p.ID] || broken[q.ID]
		}
		if a && !isTestMain(p) && p.Module != nil && !broken[p.ID] {
			g.affected[p.ID] = true
			g.order = append(g.order, p)
		}
		return g.affected[p.ID]
	}
	sort.Slice(all, func(i, j int) bool { return all[i].ID < all[j].ID })
	for _, p := range all {
		visit(p)
	}
}

// instrumentable reports whether p is rewritten.
func (g *graph) instrumentable(p *packages.Package) bool {
	if p.Module == nil || isTestMain(p) || len(p.Errors) > 0 {
		return false
	}
	src := g.src[p.ID]
	if src == nil || len(src.Errors) > 0 {
		return false
	}
	p = src
	if g.excluded[p.PkgPath] || p.PkgPath == "github.com/weftdev/weft" || strings.HasPrefix(p.PkgPath, "github.com/weftdev/weft/") {
		return false
	}
	if len(p.CompiledGoFiles) != len(p.GoFiles) {
		return false // cgo
	}
	for _, f := range p.Syntax {
		for _, imp := range f.Imports {
			if imp.Path.Value == `"C"` {
				return false
			}
		}
	}
	return g.cfg.Instrument != nil && g.cfg.Instrument(basePath(p))
}

// basePath is the import path of the package a variant is of: p for
// p_test.
func basePath(p *packages.Package) string {
	if strings.Contains(p.ID, " [") {
		return strings.TrimSuffix(p.PkgPath, "_test")
	}
	return p.PkgPath
}

func isTestMain(p *packages.Package) bool {
	return p.Name == "main" && strings.HasSuffix(p.ID, ".test")
}

// instrumentedPath reports whether package path is rewritten, as seen from
// package variant from.
func (g *graph) instrumentedPath(from *packages.Package, path string) bool {
	if path == from.PkgPath {
		return g.instr[from.ID]
	}
	if dep := findDep(from, path); dep != nil {
		return g.instr[dep.ID]
	}
	return false
}

// findDep returns the package variant with import path path that from
// depends on, directly or not.
func findDep(from *packages.Package, path string) *packages.Package {
	seen := map[string]bool{}
	var walk func(p *packages.Package) *packages.Package
	walk = func(p *packages.Package) *packages.Package {
		if seen[p.ID] {
			return nil
		}
		seen[p.ID] = true
		if p.PkgPath == path {
			return p
		}
		for _, k := range sortedKeys(p.Imports) {
			if q := walk(p.Imports[k]); q != nil {
				return q
			}
		}
		return nil
	}
	for _, k := range sortedKeys(from.Imports) {
		if q := walk(from.Imports[k]); q != nil {
			return q
		}
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// stale reports whether p must be rewritten (again): it never was, a
// decision about one of its files was taken since, or a package it
// imports was checked again since. The types of a package checked again
// are new objects, even when its rewrite is the same: a package checked
// against the earlier ones would not share them with one checked against
// the new (protobuf's protoiface.Methods and protoreflect's methods, two
// aliases of one struct type, would no longer be identical in
// descriptorpb).
func (g *graph) stale(p *packages.Package) bool {
	o := g.out[p.ID]
	if o == nil || len(o.errs) > 0 {
		return true // never rewritten, or not yet to a package that checks
	}
	for _, f := range p.CompiledGoFiles {
		if g.dec.version[f] != o.versions[f] {
			return true
		}
	}
	for _, q := range p.Imports {
		if qo := g.out[q.ID]; qo != nil && g.affected[q.ID] && o.imports[q.ID] != qo.types {
			return true
		}
	}
	return false
}

// importsStale reports whether a package p imports must be rewritten
// again before p is judged.
func (g *graph) importsStale(p *packages.Package) bool {
	for _, q := range p.Imports {
		if g.out[q.ID] != nil && g.stale(q) {
			return true
		}
	}
	return false
}

// process rewrites p, and type-checks it, until it checks or the safety
// net has nothing left to narrow down in p.
func (g *graph) process(p *packages.Package) error {
	for try := 0; ; try++ {
		o, res, err := g.attempt(p)
		if err != nil {
			return err
		}
		g.out[p.ID] = o
		if len(o.errs) == 0 {
			return nil
		}
		if g.importsStale(p) {
			// p's own flow analysis took a decision about a package it
			// imports, rewritten earlier in this pass: p is checked again
			// once that package is rewritten, in the next pass.
			return nil
		}
		own, other := g.remedy(p, res, o.errs)
		switch {
		case own && try < maxTries:
			continue
		case other:
			return nil // the packages at fault are rewritten again first, in the next pass
		}
		why := "the rewrite does not type-check: " + firstLine(o.errs[0].Error())
		if g.makeWhole(p, why) {
			continue
		}
		if g.blameImports(p, o) {
			return nil
		}
		return fmt.Errorf("instrument: %s does not type-check, even as it is, against the packages it imports: %v", p.ID, o.errs[0])
	}
}

// attempt rewrites p with the decisions so far and type-checks the result.
func (g *graph) attempt(p *packages.Package) (*outcome, *pkgResult, error) {
	o := &outcome{versions: map[string]int{}, imports: map[string]*types.Package{}, files: map[string][]byte{}}
	for _, f := range p.CompiledGoFiles {
		o.versions[f] = g.dec.version[f]
	}
	for _, q := range p.Imports {
		if qo := g.out[q.ID]; qo != nil && g.affected[q.ID] {
			o.imports[q.ID] = qo.types
		}
	}
	var res *pkgResult
	if g.instr[p.ID] {
		pr := newPkgRewriter(g, g.src[p.ID])
		var err error
		res, err = pr.rewrite()
		if err != nil {
			return nil, nil, err
		}
	} else {
		res = &pkgResult{pkg: p, files: map[string]*fileResult{}}
		o.whole = "not instrumented"
	}
	for path, fr := range res.files {
		if fr.changed {
			o.files[path] = fr.src
		}
	}
	o.skips = res.skips
	if o.whole == "" && len(p.CompiledGoFiles) > 0 && g.allWhole(p) {
		o.whole = g.dec.whole[p.CompiledGoFiles[0]]
	}
	o.types, o.info, o.errs = g.check(p, res)
	return o, res, nil
}

// allWhole reports whether every file of p is left as it is.
func (g *graph) allWhole(p *packages.Package) bool {
	for _, f := range p.CompiledGoFiles {
		if g.dec.whole[f] == "" {
			return false
		}
	}
	return true
}

// makeWhole leaves every file of p as it is; it reports whether that is
// new.
func (g *graph) makeWhole(p *packages.Package, why string) bool {
	added := false
	for _, f := range p.CompiledGoFiles {
		if g.dec.addWhole(f, why) {
			added = true
		}
	}
	return added
}

// consistent checks that the variants of a package agree on the rewrite
// of the files they share; a file they disagree on is left as it is (and
// another pass follows).
func (g *graph) consistent() bool {
	seen := map[string][]byte{}
	ok := true
	for _, p := range g.order {
		o := g.out[p.ID]
		for _, path := range p.CompiledGoFiles {
			src, changed := o.files[path]
			if !changed {
				src = nil
			}
			if prev, ok2 := seen[path]; ok2 && string(prev) != string(src) {
				if g.dec.addWhole(path, "its package's variants rewrite it differently") {
					ok = false
				}
			}
			seen[path] = src
		}
	}
	return ok
}

func (g *graph) result() *Result {
	r := &Result{Files: map[string][]byte{}}
	seen := map[string]bool{}
	for _, p := range g.order {
		o := g.out[p.ID]
		rp := Package{ID: p.ID, PkgPath: p.PkgPath, Instrumented: g.instr[p.ID], Skips: o.skips}
		if g.instr[p.ID] {
			rp.Whole = o.whole
		}
		for _, path := range sortedKeys(o.files) {
			rp.Files = append(rp.Files, path)
			r.Files[path] = o.files[path]
		}
		for _, s := range o.skips {
			if k := s.String(); !seen[k] {
				seen[k] = true
				r.Skips = append(r.Skips, s)
			}
		}
		r.Packages = append(r.Packages, rp)
	}
	sortSkips(r.Skips)
	return r
}

func sortSkips(skips []Skip) {
	sort.SliceStable(skips, func(i, j int) bool {
		a, b := skips[i].Pos, skips[j].Pos
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		if a.Offset != b.Offset {
			return a.Offset < b.Offset
		}
		return skips[i].What < skips[j].What
	})
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// hasSyntax reports whether p was loaded with syntax and type
// information.
func hasSyntax(p *packages.Package) bool {
	return p.TypesInfo != nil && len(p.Syntax) == len(p.CompiledGoFiles)
}

// syntax returns p's files and their syntax trees, in the same order:
// as loaded, or parsed here for a package loaded from export data.
func (g *graph) syntax(p *packages.Package) ([]string, []*ast.File) {
	if src := g.src[p.ID]; src != nil {
		return src.CompiledGoFiles, src.Syntax
	}
	if files, ok := g.parsed[p.ID]; ok {
		return p.CompiledGoFiles, files
	}
	var files []*ast.File
	for _, path := range p.CompiledGoFiles {
		var f *ast.File
		if src, err := g.source(path); err == nil {
			f, _ = parser.ParseFile(g.fset, path, src, parser.ParseComments|parser.SkipObjectResolution)
		}
		if f == nil {
			f = &ast.File{Name: ast.NewIdent(p.Name)} // unreadable: the check reports what it lacks
		}
		files = append(files, f)
	}
	g.parsed[p.ID] = files
	return p.CompiledGoFiles, files
}
