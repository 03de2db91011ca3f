package instrument

import (
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"strings"
)

// rewriter rewrites one file.
type rewriter struct {
	pr    *pkgRewriter
	info  *types.Info
	fset  *token.FileSet
	tf    *token.File
	file  *ast.File
	ed    *edits
	used  map[string]bool         // weft imports the rewritten file needs
	gone  map[*ast.Ident]bool     // identifiers rewritten away
	added map[string]string       // imports added for the types the rewrite spells: path → name
	kept  map[*types.PkgName]bool // imports the rewrite uses anew
	skips []Skip
	temps int
	goVer string // the file's Go language version, e.g. "go1.22"
	// rawTypes makes typeText spell channels and sync's types as the
	// standard library's.
	rawTypes bool

	tparams  map[*ast.StarExpr]bool // the *testing.T of the file's test signatures
	stdFuncs map[ast.Node]bool      // the functions that keep the standard context (see stdctx.go)
	stdTypes map[ast.Expr]bool      // the context.Context of their parameters
	parents  map[ast.Node]ast.Node
	reported map[token.Pos]bool
}

func newRewriter(pr *pkgRewriter, f *ast.File, src []byte) *rewriter {
	r := &rewriter{
		pr:       pr,
		info:     pr.info,
		fset:     pr.fset,
		tf:       pr.fset.File(f.Pos()),
		file:     f,
		ed:       &edits{src: src},
		used:     map[string]bool{},
		gone:     map[*ast.Ident]bool{},
		added:    map[string]string{},
		kept:     map[*types.PkgName]bool{},
		reported: map[token.Pos]bool{},
		goVer:    f.GoVersion,
	}
	if r.goVer == "" && pr.pkg.Module != nil && pr.pkg.Module.GoVersion != "" {
		r.goVer = "go" + pr.pkg.Module.GoVersion
	}
	return r
}

func (r *rewriter) off(p token.Pos) int { return r.tf.Offset(p) }

// text returns a reference to n's text as rewritten so far, for the text
// of an edit.
func (r *rewriter) text(n ast.Node) string { return r.ed.ref(r.off(n.Pos()), r.off(n.End())) }

// plain returns n's text as rewritten so far.
func (r *rewriter) plain(n ast.Node) string { return r.ed.text(r.off(n.Pos()), r.off(n.End())) }

func (r *rewriter) replace(n ast.Node, text string) {
	r.ed.replace(r.off(n.Pos()), r.off(n.End()), text)
}

// site records that the rewrite of n can be undone by making class raw
// (nil: by not rewriting n).
func (r *rewriter) site(n ast.Node, class any, what string) {
	r.pr.sites[n] = site{class: class, what: what}
}

// skipped returns why the site at n is left alone by a decision of the
// safety net, or "".
func (r *rewriter) skipped(n ast.Node) string {
	s, ok := spanOf(r.fset, n.Pos(), n.End())
	if !ok {
		return ""
	}
	return r.pr.g.dec.skipWhy(s)
}

// skip reports a site left alone, once per position and kind.
func (r *rewriter) skip(n ast.Node, what, why string) {
	key := n.Pos() + token.Pos(len(what))<<40
	if r.reported[key] {
		return
	}
	r.reported[key] = true
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
func (r *rewriter) rewrite() ([]byte, []piece) {
	r.findStdContexts()
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
	if len(r.ed.list) == 0 {
		return r.ed.src, nil
	}
	r.fixImports()
	r.header()
	return r.ed.apply()
}

// visit rewrites one node, after its children.
func (r *rewriter) visit(n, parent ast.Node) {
	switch n := n.(type) {
	case *ast.SelectorExpr:
		r.selector(n, parent)
	case *ast.ChanType:
		r.chanType(n)
	case *ast.StarExpr:
		r.testingType(n)
	case *ast.CallExpr:
		r.call(n)
	case *ast.TypeAssertExpr:
		r.netAssert(n)
	case *ast.UnaryExpr:
		if n.Op == token.ARROW {
			r.receive(n, parent)
		} else if n.Op == token.AND {
			r.testingLit(n)
		}
	case *ast.BinaryExpr:
		r.compare(n)
	case *ast.SendStmt:
		r.send(n)
	case *ast.AssignStmt:
		r.commaOK(n, n.Lhs, n.Rhs)
	case *ast.ValueSpec:
		r.commaOK(n, identExprs(n.Names), n.Values)
	case *ast.RangeStmt:
		r.rangeChan(n)
		r.rangeMap(n)
	case *ast.GoStmt:
		r.goStmt(n)
	case *ast.SelectStmt:
		r.selectStmt(n)
	case *ast.FuncDecl:
		r.testFunc(n)
		r.plainFunc(n, n.Type, n.Body)
		r.stdPrologue(n, n.Type, n.Body)
	case *ast.FuncLit:
		r.plainFunc(n, n.Type, n.Body)
		r.stdPrologue(n, n.Type, n.Body)
	case *ast.TypeSpec:
		r.namedChanDecl(n)
	case *ast.ArrayType:
		r.arrayLen(n)
	}
	if e, ok := n.(ast.Expr); ok {
		r.convert(e)
	}
}

func identExprs(ids []*ast.Ident) []ast.Expr {
	out := make([]ast.Expr, len(ids))
	for i, id := range ids {
		out[i] = id
	}
	return out
}

func isBlank(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == "_"
}

func (r *rewriter) typeOf(e ast.Expr) types.Type {
	if t := r.info.TypeOf(e); t != nil {
		return coreType(t)
	}
	return nil
}

// parentOf returns the parent of a node, found by a walk from the file.
func (r *rewriter) parentOf(n ast.Node) ast.Node {
	if r.parents == nil {
		r.parents = map[ast.Node]ast.Node{}
		var stack []ast.Node
		ast.Inspect(r.file, func(m ast.Node) bool {
			if m == nil {
				stack = stack[:len(stack)-1]
				return true
			}
			if len(stack) > 0 {
				r.parents[m] = stack[len(stack)-1]
			}
			stack = append(stack, m)
			return true
		})
	}
	return r.parents[n]
}

// isComm reports whether statement n is the communication of a select
// case (not a statement of its body).
func (r *rewriter) isComm(n ast.Node) bool {
	cc, ok := r.parentOf(n).(*ast.CommClause)
	return ok && cc.Comm == n
}

// instrumented reports whether the declarations of pkg are rewritten.
func (r *rewriter) instrumented(pkg *types.Package) bool { return r.pr.instrumentedPkg(pkg) }

func (r *rewriter) isTestFile() bool { return strings.HasSuffix(r.tf.Name(), "_test.go") }
