package instrument

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/types"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/packages"
)

// check type-checks p as rewritten (its files in res, the others as they
// are) against the rewritten types of the packages it imports.
func (g *graph) check(p *packages.Package, res *pkgResult) (*types.Package, *types.Info, []error) {
	var errs []error
	paths, syntax := g.syntax(p)
	files := make([]*ast.File, 0, len(syntax))
	for i, path := range paths {
		fr := res.files[path]
		if fr == nil || !fr.changed {
			if i < len(syntax) {
				files = append(files, syntax[i])
			}
			continue
		}
		f, err := parser.ParseFile(g.fset, path, fr.src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			var list scanner.ErrorList
			if errors.As(err, &list) {
				for _, e := range list {
					errs = append(errs, syntaxError{path: path, offset: e.Pos.Offset, msg: e.Msg})
				}
			} else {
				errs = append(errs, syntaxError{path: path, msg: err.Error()})
			}
			continue
		}
		fr.parsed = f
		g.rewritten[g.fset.File(f.Pos())] = fr
		files = append(files, f)
	}
	if len(errs) > 0 {
		return nil, nil, errs
	}
	conf := types.Config{
		Importer: importer{g, p},
		Sizes:    p.TypesSizes,
		Error:    func(err error) { errs = append(errs, err) },
	}
	if p.Module != nil && p.Module.GoVersion != "" {
		conf.GoVersion = "go" + p.Module.GoVersion
	}
	var info *types.Info
	if !g.instr[p.ID] {
		info = &types.Info{Uses: map[*ast.Ident]types.Object{}}
	}
	tpkg, _ := conf.Check(p.PkgPath, g.fset, files, info)
	return tpkg, info, errs
}

// syntaxError is a rewritten file that does not parse: a defect of the
// rewriter, traced to its site like a type error.
type syntaxError struct {
	path   string
	offset int
	msg    string
}

func (e syntaxError) Error() string { return fmt.Sprintf("%s: syntax error: %s", e.path, e.msg) }

// importer resolves the imports of a package variant being checked: the
// rewritten types of the packages rewritten or checked, the loaded ones of
// the others, weft's runtime.
type importer struct {
	g *graph
	p *packages.Package
}

func (im importer) Import(path string) (*types.Package, error) {
	return im.ImportFrom(path, "", 0)
}

func (im importer) ImportFrom(path, _ string, _ types.ImportMode) (*types.Package, error) {
	if path == "unsafe" {
		return types.Unsafe, nil
	}
	dep := im.p.Imports[path]
	if dep == nil {
		dep = im.g.runtime[path]
	}
	if dep == nil {
		dep = findDep(im.p, path)
	}
	if dep == nil {
		return nil, fmt.Errorf("instrument: %s: no package %s in the loaded graph", im.p.ID, path)
	}
	if c := im.g.byID[dep.ID]; c != nil {
		dep = c
	}
	if im.g.affected[dep.ID] {
		if o := im.g.out[dep.ID]; o != nil && o.types != nil {
			return o.types, nil
		}
		return nil, fmt.Errorf("instrument: %s: %s is not checked yet", im.p.ID, dep.ID)
	}
	return im.g.typesOf(dep)
}

// remedy narrows down the sites at fault for the type errors of p's
// rewrite, and records decisions to leave them alone. It reports whether
// it decided anything about p's own files, and about other packages'.
func (g *graph) remedy(p *packages.Package, res *pkgResult, errs []error) (own, other bool) {
	files := map[string]bool{}
	for _, f := range p.CompiledGoFiles {
		files[f] = true
	}
	for _, err := range errs {
		file, start, end, ok := g.locate(res, err)
		if !ok {
			continue
		}
		for _, d := range g.narrow(p, res, file, start, end, errMsg(err)) {
			if files[d] {
				own = true
			} else {
				other = true
			}
		}
	}
	return own, other
}

// locate returns the range of the original source that an error in the
// rewritten package points at.
func (g *graph) locate(res *pkgResult, err error) (file string, start, end int, ok bool) {
	var path string
	var off int
	switch e := err.(type) {
	case types.Error:
		tf := g.fset.File(e.Pos)
		if tf == nil {
			return "", 0, 0, false
		}
		path, off = tf.Name(), tf.Offset(e.Pos)
		fr := res.files[path]
		if fr == nil || !fr.changed || fr.parsed == nil || g.fset.File(fr.parsed.Pos()) != tf {
			return path, off, off + 1, true // an unchanged file: the position is the original's
		}
	case syntaxError:
		path, off = e.path, e.offset
	default:
		return "", 0, 0, false
	}
	fr := res.files[path]
	if fr == nil {
		return "", 0, 0, false
	}
	s, e, ok := origin(fr.pieces, off)
	return path, s, e, ok
}

// narrow finds, on the path of nodes enclosing [start, end) of file, the
// innermost site whose rewrite can be left alone, and leaves it alone. It
// returns the files of the decisions it took.
func (g *graph) narrow(p *packages.Package, res *pkgResult, file string, start, end int, msg string) []string {
	var af *ast.File
	paths, syntax := g.syntax(p)
	for i, path := range paths {
		if path == file && i < len(syntax) {
			af = syntax[i]
		}
	}
	if af == nil || res.pr == nil {
		return nil
	}
	tf := g.fset.File(af.Pos())
	if end > tf.Size() {
		end = tf.Size()
	}
	if start >= end {
		start = max(end-1, 0)
	}
	path, _ := astutil.PathEnclosingInterval(af, tf.Pos(start), tf.Pos(end))
	for _, n := range path {
		if d := res.pr.leaveAlone(n, msg); len(d) > 0 {
			return d
		}
	}
	return nil
}

// blameImports handles a package left whole that still does not check
// against its rewritten imports: the values of those packages its errors
// touch keep Go's types; failing that, the imports are left whole too. It
// reports whether it decided anything.
func (g *graph) blameImports(p *packages.Package, o *outcome) bool {
	added := false
	_, syntax := g.syntax(p)
	for _, err := range o.errs {
		te, ok := err.(types.Error)
		if !ok || o.info == nil {
			continue
		}
		for _, f := range syntax {
			if g.fset.File(f.Pos()) != g.fset.File(te.Pos) {
				continue
			}
			nodes, _ := astutil.PathEnclosingInterval(f, te.Pos, te.Pos+1)
			for _, n := range nodes {
				ast.Inspect(n, func(m ast.Node) bool {
					id, ok := m.(*ast.Ident)
					if !ok {
						return true
					}
					obj := o.info.Uses[id]
					if obj == nil || obj.Pkg() == nil || obj.Pkg().Path() == p.PkgPath || !g.instrumentedPath(p, obj.Pkg().Path()) {
						return true
					}
					objs := []types.Object{obj}
					if sig, ok := obj.Type().(*types.Signature); ok {
						// A function: its parameters and results are the values.
						objs = append(tupleObjects(sig.Params()), tupleObjects(sig.Results())...)
					}
					for _, o := range objs {
						if !carries(o.Type(), map[types.Type]bool{}) {
							continue
						}
						if k, ok := objKeyOf(g.fset, o); ok {
							if g.dec.addRawObj(k, fmt.Sprintf("%s, which weft does not rewrite, uses it as it is", p.PkgPath)) {
								added = true
							}
						}
					}
					return true
				})
				if added {
					break
				}
			}
		}
	}
	if added {
		return true
	}
	for _, q := range p.Imports {
		if g.instr[q.ID] && g.makeWhole(q, fmt.Sprintf("%s, which is not instrumented, does not build against its rewrite", p.PkgPath)) {
			added = true
		}
	}
	return added
}

// errMsg is an error's message without its position.
func errMsg(err error) string {
	switch e := err.(type) {
	case types.Error:
		return e.Msg
	case syntaxError:
		return "syntax error: " + e.msg
	}
	return err.Error()
}

func tupleObjects(t *types.Tuple) []types.Object {
	out := make([]types.Object, t.Len())
	for i := range t.Len() {
		out[i] = t.At(i)
	}
	return out
}
