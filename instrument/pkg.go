package instrument

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"sort"

	"golang.org/x/tools/go/packages"
)

// pkgRewriter rewrites one package variant with the decisions taken so far.
type pkgRewriter struct {
	g    *graph
	pkg  *packages.Package
	info *types.Info
	fset *token.FileSet
	flow *flow
	// sites records what the rewrite did at each node, for the safety net.
	sites map[ast.Node]site
	// plain are the functions that keep running as go test runs them,
	// with their *testing.T parameters, and why (see plainFunc).
	plain       map[ast.Node]string
	plainParams map[*ast.StarExpr]bool
	// net is what the package does with net's TCP types (see netWhy),
	// found at the first call of net's that weft replaces.
	net *netScan
}

// A site is a rewrite the safety net can undo: by making the class of a
// flow node raw (class), or by not rewriting the node at all.
type site struct {
	class any
	what  string
}

// pkgResult is a package variant as rewritten.
type pkgResult struct {
	pkg   *packages.Package
	pr    *pkgRewriter
	files map[string]*fileResult
	skips []Skip
}

// fileResult is a file as rewritten.
type fileResult struct {
	src     []byte
	pieces  []piece
	changed bool
	parsed  *ast.File // the rewritten file, once checked
}

func newPkgRewriter(g *graph, p *packages.Package) *pkgRewriter {
	return &pkgRewriter{
		g:     g,
		pkg:   p,
		info:  p.TypesInfo,
		fset:  p.Fset,
		sites: map[ast.Node]site{},
		plain: map[ast.Node]string{},
	}
}

// rewrite rewrites every file of the package.
func (pr *pkgRewriter) rewrite() (*pkgResult, error) {
	res := &pkgResult{pkg: pr.pkg, pr: pr, files: map[string]*fileResult{}}
	pr.flow = newFlow(pr)
	pr.flow.build(pr.pkg.Syntax)
	pr.findPlain()
	for i, f := range pr.pkg.Syntax {
		path := pr.pkg.CompiledGoFiles[i]
		src, err := pr.g.source(path)
		if err != nil {
			return nil, fmt.Errorf("instrument: %s: %w", path, err)
		}
		if pr.g.dec.whole[path] != "" {
			res.files[path] = &fileResult{src: src}
			continue
		}
		r := newRewriter(pr, f, src)
		out, pieces := r.rewrite()
		res.skips = append(res.skips, r.skips...)
		res.files[path] = &fileResult{src: out, pieces: pieces, changed: string(out) != string(src)}
	}
	pr.export()
	sortSkips(res.skips)
	return res, nil
}

// source returns the original text of a file.
func (g *graph) source(path string) ([]byte, error) {
	if src, ok := g.sources[path]; ok {
		return src, nil
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	g.sources[path] = src
	return src, nil
}

// export records the raw classes of the analysis as decisions, so that
// the other variants of the package, and the packages that share values
// with it, decide alike.
func (pr *pkgRewriter) export() {
	type entry struct {
		key string
		x   any
		why string
	}
	var list []entry
	for x := range pr.flow.added {
		why := pr.flow.rawWhy(x)
		if why == "" || !pr.inInstrumented(x) {
			continue
		}
		key := ""
		switch x := x.(type) {
		case types.Object:
			k, ok := objKeyOf(pr.fset, x)
			if !ok {
				continue
			}
			key = fmt.Sprintf("%s\x00%09d\x00%s", k.file, k.line, k.name)
		case ast.Node:
			s, ok := spanOf(pr.fset, x.Pos(), x.End())
			if !ok {
				continue
			}
			key = fmt.Sprintf("%s\x00%09d\x00%09d", s.file, s.start, s.end)
		}
		list = append(list, entry{key, x, why})
	}
	sort.Slice(list, func(i, j int) bool { return list[i].key < list[j].key })
	for _, e := range list {
		pr.record(e.x, e.why)
	}
	pr.exportContents()
}

// exportContents records the holders whose contents keep Go's types (see
// holders.go), by their objects.
func (pr *pkgRewriter) exportContents() {
	var keys []objKey
	why := map[objKey]string{}
	for x := range pr.flow.added {
		obj, ok := x.(types.Object)
		if !ok || !pr.inInstrumented(x) {
			continue
		}
		c, ok := pr.flow.contents[pr.flow.find(x)]
		if !ok {
			continue
		}
		w := pr.flow.rawWhy(c)
		k, ok := objKeyOf(pr.fset, obj)
		if w == "" || !ok {
			continue
		}
		old, dup := why[k]
		if !dup {
			keys = append(keys, k)
		}
		if !dup || w < old {
			why[k] = w // the same reason whatever the order of the visit
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.file != b.file {
			return a.file < b.file
		}
		if a.line != b.line {
			return a.line < b.line
		}
		return a.name < b.name
	})
	for _, k := range keys {
		pr.g.dec.addRawContents(k, why[k])
	}
}

// record records that flow node x keeps Go's types; it returns the file
// of the decision if it is new, "" otherwise.
func (pr *pkgRewriter) record(x any, why string) string {
	switch x := x.(type) {
	case types.Object:
		if k, ok := objKeyOf(pr.fset, x); ok && pr.g.dec.addRawObj(k, why) {
			return k.file
		}
	case ast.Node:
		if s, ok := spanOf(pr.fset, x.Pos(), x.End()); ok && pr.g.dec.addRaw(s, why) {
			return s.file
		}
	}
	return ""
}

// inInstrumented reports whether flow node x belongs to a package weft
// rewrites.
func (pr *pkgRewriter) inInstrumented(x any) bool {
	if obj, ok := x.(types.Object); ok {
		return obj.Pkg() != nil && pr.instrumentedPkg(obj.Pkg())
	}
	return true
}

// seedOf returns why flow node x keeps Go's types from the start: a
// decision of the rewrite, or an object of a package weft does not
// instrument.
func (pr *pkgRewriter) seedOf(x any) string {
	if obj, ok := x.(types.Object); ok {
		if obj.Pkg() == nil {
			return ""
		}
		if !pr.instrumentedPkg(obj.Pkg()) {
			if containers[obj.Pkg().Path()] {
				return ""
			}
			return fmt.Sprintf("it is shared with %s, which weft does not instrument", obj.Pkg().Path())
		}
	}
	switch x := x.(type) {
	case types.Object:
		if k, ok := objKeyOf(pr.fset, x); ok {
			return pr.g.dec.rawObjWhy(k)
		}
	case ast.Node:
		if s, ok := spanOf(pr.fset, x.Pos(), x.End()); ok {
			return pr.g.dec.rawWhy(s)
		}
	}
	return ""
}

// contentsSeedOf returns why the values held by flow node x (a sync.Map,
// a context) keep Go's types from the start: a decision of the rewrite of
// another package. (A holder of a package weft does not instrument keeps
// Go's types, and so its contents: see rawContents.)
func (pr *pkgRewriter) contentsSeedOf(x any) string {
	obj, ok := x.(types.Object)
	if !ok || obj.Pkg() == nil || !pr.instrumentedPkg(obj.Pkg()) {
		return ""
	}
	if k, ok := objKeyOf(pr.fset, obj); ok {
		return pr.g.dec.rawContentsWhy(k)
	}
	return ""
}

// instrumentedPkg reports whether the declarations of pkg are rewritten.
func (pr *pkgRewriter) instrumentedPkg(pkg *types.Package) bool {
	if pkg == nil || pkg == pr.pkg.Types {
		return true
	}
	return pr.g.instrumentedPath(pr.pkg, pkg.Path())
}

func (pr *pkgRewriter) objectOf(id *ast.Ident) types.Object {
	if obj := pr.info.Uses[id]; obj != nil {
		return obj
	}
	return pr.info.Defs[id]
}

// callee returns the function or method a call calls, if static.
func (pr *pkgRewriter) callee(c *ast.CallExpr) *types.Func {
	switch f := ast.Unparen(c.Fun).(type) {
	case *ast.Ident:
		fn, _ := pr.info.Uses[f].(*types.Func)
		return fn
	case *ast.SelectorExpr:
		if sel := pr.info.Selections[f]; sel != nil {
			fn, _ := sel.Obj().(*types.Func)
			return fn
		}
		fn, _ := pr.info.Uses[f.Sel].(*types.Func)
		return fn
	case *ast.IndexExpr: // a generic function instantiated explicitly
		return pr.callee(&ast.CallExpr{Fun: f.X})
	case *ast.IndexListExpr:
		return pr.callee(&ast.CallExpr{Fun: f.X})
	}
	return nil
}

// leaveAlone records the decision that undoes the rewrite at node n, if
// there is one not taken yet, and returns the files it is about.
func (pr *pkgRewriter) leaveAlone(n ast.Node, msg string) []string {
	if s, ok := pr.sites[n]; ok {
		if s.class != nil {
			if f := pr.makeRaw(s.class, "the rewrite of a "+s.what+" does not type-check", msg); f != "" {
				return []string{f}
			}
		} else if sp, ok := spanOf(pr.fset, n.Pos(), n.End()); ok {
			if pr.g.dec.addSkip(sp, "its rewrite does not type-check: "+msg) {
				return []string{sp.file}
			}
		}
	}
	switch n := n.(type) {
	case *ast.FuncLit:
		return pr.leaveAloneIn(n.Type, msg)
	case *ast.FuncType:
		return pr.leaveAloneIn(n, msg)
	}
	if e, ok := n.(ast.Expr); ok {
		if t := pr.info.TypeOf(e); t != nil && pr.flow.carries(t) {
			if x := pr.flow.node(e); x != nil && pr.flow.rawWhy(x) == "" {
				if f := pr.makeRaw(x, "the rewrite of its uses does not type-check", msg); f != "" {
					return []string{f}
				}
			}
		}
	}
	return nil
}

// makeRaw records that flow node x keeps Go's types, and returns the file
// of the decision, or "" if it was taken already.
func (pr *pkgRewriter) makeRaw(x any, why, msg string) string {
	if pr.flow.rawWhy(x) != "" || !pr.inInstrumented(x) {
		return ""
	}
	p := pr.fset.Position(posOfNode(x))
	return pr.record(x, fmt.Sprintf("%s (at %s:%d: %s)", why, filepath.Base(p.Filename), p.Line, msg))
}

func posOfNode(x any) token.Pos {
	switch x := x.(type) {
	case types.Object:
		return x.Pos()
	case ast.Node:
		return x.Pos()
	}
	return token.NoPos
}

// leaveAloneIn undoes the first rewrite in a function type's parameters
// and results not undone yet: a function literal handed to code that wants
// another signature.
func (pr *pkgRewriter) leaveAloneIn(ft *ast.FuncType, msg string) []string {
	var out []string
	ast.Inspect(ft, func(m ast.Node) bool {
		if len(out) > 0 || m == nil || m == ast.Node(ft) {
			return len(out) == 0
		}
		if _, ok := pr.sites[m]; ok {
			out = pr.leaveAlone(m, msg)
		}
		return len(out) == 0
	})
	return out
}

// containers are the packages of the standard library that hold values in
// interfaces and hand them back as they are, without reflecting on them:
// a channel stored in a sync.Pool can stay one of weft's. errors compares
// errors with == and matches their dynamic types (As), which the rewrite
// changes alike on both sides, so an error type holding a channel, or an
// interface whose values flow into errors.Is, keeps weft's channels too
// (alitto/pond's tasks, whose every channel was Go's).
var containers = map[string]bool{
	"errors":         true,
	"sync":           true,
	"sync/atomic":    true,
	"container/list": true,
	"container/ring": true,
	"container/heap": true,
}
