// Package instrument rewrites the Go source of a package so that it runs
// under weft as if it had been written with package sim: go statements,
// channels and select, the types and functions of sync, sync/atomic, time,
// context and math/rand, and the package's tests (TestXxx becomes a body of
// weft's controller).
//
// The rewrite works on the source text with full type information: each
// construct is replaced in place, so every rewritten statement stays on its
// original line, and failures, timelines and stacks name the user's own
// file:line. Imports weft needs are added on the package clause's line.
// A site the rewriter cannot instrument safely (a channel that comes from a
// package weft does not instrument, a type it cannot spell) is left alone
// and reported as a Skip.
package instrument

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"os"
	"sort"
	"strconv"

	"golang.org/x/tools/go/packages"
)

// The names under which rewritten files import weft's packages: unusual
// enough never to clash with the user's identifiers.
const (
	simName  = "weftsim"
	ctxName  = "weftctx"
	weftName = "weftt"
)

var importPaths = map[string]string{
	simName:  "github.com/weftdev/weft/sim",
	ctxName:  "github.com/weftdev/weft/sim/simctx",
	weftName: "github.com/weftdev/weft/testing",
}

// Config configures a rewrite.
type Config struct {
	// Instrumented reports whether the package with this import path is
	// rewritten too, so that the channel, sync and context types of its
	// declarations are weft's. The package being rewritten always is.
	Instrumented func(path string) bool
}

// A Skip is a site left alone, with the reason.
type Skip struct {
	Pos  token.Position
	What string
	Why  string
}

func (s Skip) String() string { return fmt.Sprintf("%s: %s: %s", s.Pos, s.What, s.Why) }

// A File is a rewritten source file.
type File struct {
	Path   string // the original file
	Source []byte // its rewritten text, line for line
}

// Result is the rewrite of a package.
type Result struct {
	Files []File // only the files that changed
	Skips []Skip
}

// Package rewrites the files of pkg, which must be loaded with syntax and
// type information (packages.NeedSyntax|NeedTypes|NeedTypesInfo|NeedFiles|
// NeedModule).
func Package(pkg *packages.Package, cfg Config) (*Result, error) {
	if len(pkg.Errors) > 0 {
		return nil, fmt.Errorf("instrument: %s: %v", pkg.PkgPath, pkg.Errors[0])
	}
	if len(pkg.CompiledGoFiles) == 0 {
		return &Result{}, nil // a package of test files only, in its non-test variant
	}
	if pkg.TypesInfo == nil || len(pkg.Syntax) == 0 {
		return nil, fmt.Errorf("instrument: %s: loaded without syntax or type information", pkg.PkgPath)
	}
	res := &Result{}
	for i, f := range pkg.Syntax {
		path := pkg.CompiledGoFiles[i]
		src, err := fileSource(pkg.Fset, f)
		if err != nil {
			return nil, fmt.Errorf("instrument: %s: %w", path, err)
		}
		r := newRewriter(pkg, cfg, f, src)
		out, skips := r.rewrite()
		res.Skips = append(res.Skips, skips...)
		if !bytes.Equal(out, src) {
			res.Files = append(res.Files, File{Path: path, Source: out})
		}
	}
	sort.Slice(res.Skips, func(i, j int) bool {
		a, b := res.Skips[i].Pos, res.Skips[j].Pos
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		return a.Offset < b.Offset
	})
	return res, nil
}

// fileSource returns the text a file was parsed from.
func fileSource(fset *token.FileSet, f *ast.File) ([]byte, error) {
	tf := fset.File(f.Pos())
	if tf == nil {
		return nil, fmt.Errorf("no position information")
	}
	return os.ReadFile(tf.Name())
}

// rewriter rewrites one file.
type rewriter struct {
	pkg   *packages.Package
	cfg   Config
	info  *types.Info
	fset  *token.FileSet
	tf    *token.File
	file  *ast.File
	ed    *edits
	used  map[string]bool         // weft imports the rewritten file needs
	names map[*types.PkgName]bool // imports whose uses were all rewritten away: checked at the end
	gone  map[*ast.Ident]bool     // identifiers rewritten away
	inits map[*types.Var]ast.Expr // the initializer of variables declared without a type
	skips []Skip
	temps int
	goVer string // the file's Go language version, e.g. "go1.22"

	tparams  map[*ast.StarExpr]bool // the *testing.T of the file's test signatures
	parents  map[ast.Node]ast.Node
	pinned   map[types.Object]string // variables whose channel is handed to uninstrumented code, and why
	keep     map[ast.Node]string     // their declarations and initializers, left alone
	reported map[ast.Node]bool
}

func newRewriter(pkg *packages.Package, cfg Config, f *ast.File, src []byte) *rewriter {
	r := &rewriter{
		pkg:      pkg,
		cfg:      cfg,
		info:     pkg.TypesInfo,
		fset:     pkg.Fset,
		tf:       pkg.Fset.File(f.Pos()),
		file:     f,
		ed:       &edits{src: src},
		used:     map[string]bool{},
		gone:     map[*ast.Ident]bool{},
		inits:    map[*types.Var]ast.Expr{},
		reported: map[ast.Node]bool{},
		goVer:    f.GoVersion,
	}
	if r.goVer == "" && pkg.Module != nil && pkg.Module.GoVersion != "" {
		r.goVer = "go" + pkg.Module.GoVersion
	}
	return r
}

func (r *rewriter) off(p token.Pos) int { return r.tf.Offset(p) }

func (r *rewriter) text(n ast.Node) string { return r.ed.text(r.off(n.Pos()), r.off(n.End())) }

func (r *rewriter) replace(n ast.Node, text string) {
	r.ed.replace(r.off(n.Pos()), r.off(n.End()), text)
}

func (r *rewriter) skip(n ast.Node, what, why string) {
	r.skips = append(r.skips, Skip{Pos: r.fset.Position(n.Pos()), What: what, Why: why})
}

func (r *rewriter) temp(prefix string) string {
	r.temps++
	return "weft" + prefix + strconv.Itoa(r.temps)
}

func (r *rewriter) sim(name string) string {
	r.used[simName] = true
	return simName + "." + name
}

// rewrite applies every rule to the file, children before parents.
func (r *rewriter) rewrite() ([]byte, []Skip) {
	r.collectInits()
	r.pin()
	var stack []ast.Node
	ast.Inspect(r.file, func(n ast.Node) bool {
		if n != nil {
			stack = append(stack, n)
			return true
		}
		n = stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		var parent ast.Node
		if len(stack) > 0 {
			parent = stack[len(stack)-1]
		}
		r.visit(n, parent)
		return true
	})
	r.fixImports()
	return r.ed.apply(), r.skips
}

// visit rewrites one node, after its children.
func (r *rewriter) visit(n, parent ast.Node) {
	switch n := n.(type) {
	case *ast.SelectorExpr:
		r.selector(n)
	case *ast.ChanType:
		r.chanType(n)
	case *ast.StarExpr:
		r.testingType(n)
	case *ast.CallExpr:
		r.call(n)
	case *ast.UnaryExpr:
		if n.Op == token.ARROW {
			r.receive(n, parent)
		}
	case *ast.SendStmt:
		r.send(n)
	case *ast.AssignStmt:
		r.commaOK(n, n.Lhs, n.Rhs)
	case *ast.ValueSpec:
		r.commaOK(n, identExprs(n.Names), n.Values)
	case *ast.RangeStmt:
		r.rangeChan(n)
	case *ast.GoStmt:
		r.goStmt(n)
	case *ast.SelectStmt:
		r.selectStmt(n)
	case *ast.FuncDecl:
		r.testFunc(n)
	}
}

func identExprs(ids []*ast.Ident) []ast.Expr {
	out := make([]ast.Expr, len(ids))
	for i, id := range ids {
		out[i] = id
	}
	return out
}

// collectInits notes the initializer of each variable declared without a
// type, so that a channel's origin can be traced through it.
func (r *rewriter) collectInits() {
	ast.Inspect(r.file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE && len(n.Lhs) == len(n.Rhs) {
				for i, l := range n.Lhs {
					if v, ok := r.info.Defs[l.(*ast.Ident)].(*types.Var); ok {
						r.inits[v] = n.Rhs[i]
					}
				}
			}
		case *ast.ValueSpec:
			if n.Type == nil && len(n.Names) == len(n.Values) {
				for i, id := range n.Names {
					if v, ok := r.info.Defs[id].(*types.Var); ok {
						r.inits[v] = n.Values[i]
					}
				}
			}
		}
		return true
	})
}

// instrumented reports whether declarations of package path are rewritten.
func (r *rewriter) instrumented(pkg *types.Package) bool {
	if pkg == nil {
		return true // universe
	}
	if pkg == r.pkg.Types || pkg.Path() == r.pkg.PkgPath {
		return true
	}
	return r.cfg.Instrumented != nil && r.cfg.Instrumented(pkg.Path())
}
