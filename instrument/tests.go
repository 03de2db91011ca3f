package instrument

import (
	"go/ast"
	"go/types"
	"strings"
)

// testingType rewrites *testing.T to weft's *TB, in every file (helpers in
// other packages of the module and in libraries take it too), but in the
// signatures of tests and of fuzz targets, which the testing package calls.
func (r *rewriter) testingType(n *ast.StarExpr) {
	x := r.testingT(n.X)
	if x == nil || r.testParams()[n] || r.pr.plainParams[n] {
		return
	}
	if why := r.skipped(n); why != "" {
		r.skip(n, "*testing.T", why)
		return
	}
	r.site(n, nil, "*testing.T")
	r.used[weftName] = true
	r.gone[x] = true
	r.replace(n, "*"+weftName+".TB")
}

// testingLit makes a *testing.T made by the code itself, &testing.T{}, a
// *weft.TB, as testingType makes every *testing.T of a signature or a
// variable one: cockroachdb/datadriven's Rewrite runs its test on
// &testing.T{}, handed to its runTestInternal, whose *testing.T parameter
// is now weft's.
//
//	&testing.T{}
//
// becomes
//
//	weftt.Plain(&testing.T{})
func (r *rewriter) testingLit(n *ast.UnaryExpr) {
	lit, ok := n.X.(*ast.CompositeLit)
	if !ok || r.testingT(lit.Type) == nil {
		return
	}
	if why := r.skipped(n); why != "" {
		r.skip(n, "&testing.T{}", why)
		return
	}
	r.site(n, nil, "&testing.T{}")
	r.used[weftName] = true
	r.ed.insert(r.off(n.Pos()), weftName+".Plain(")
	r.ed.insert(r.off(n.End()), ")")
}

// testFunc makes a test's body run under weft's controller:
//
//	func TestX(t *testing.T) { body }
//
// becomes, on the same lines,
//
//	func TestX(t *testing.T) { weftt.Test(t, func(t *weftt.TB) { body }) }
//
// A leading t.Parallel() stays outside, where it means what it always did.
// An unnamed or blank parameter is named, for the call. A test that starts
// a synctest bubble runs as go test runs it (see plainFunc).
func (r *rewriter) testFunc(n *ast.FuncDecl) {
	param, ok := r.testParam(n)
	if !ok || r.pr.plain[n] != "" {
		return
	}
	if why := r.skipped(n); why != "" {
		r.skip(n, "test", why)
		return
	}
	outer, inner := "", "_"
	switch {
	case len(param.Names) == 0:
		outer = "weftT"
		r.ed.insert(r.off(param.Type.Pos()), outer+" ")
	case param.Names[0].Name == "_":
		outer = "weftT"
		r.replace(param.Names[0], outer)
	default:
		outer, inner = param.Names[0].Name, param.Names[0].Name
	}
	start, sep := r.off(n.Body.Lbrace)+1, " "
	if len(n.Body.List) > 0 && inner != "_" && isCall(n.Body.List[0], inner, "Parallel") {
		start, sep = r.off(n.Body.List[0].End()), "; "
	}
	r.site(n, nil, "test")
	r.used[weftName] = true
	r.ed.insert(start, sep+weftName+".Test("+outer+", func("+inner+" *"+weftName+".TB) {")
	r.ed.insert(r.off(n.Body.Rbrace), "})")
}

// plainFunc keeps a function that takes a *testing.T running as go test
// runs it, outside the controller: a fuzz target (f.Fuzz checks its
// signature), a function handed to code weft does not instrument
// (synctest.Test(t, f)), a test that starts a synctest bubble (whose
// goroutines weft cannot control). Its *testing.T stays, and the body gets
// a *weft.TB that reports to it, for the helpers the rewrite made take one:
//
//	f.Fuzz(func(t *testing.T, b []byte) { body })
//
// becomes
//
//	f.Fuzz(func(weftT1 *testing.T, b []byte) { t := weftt.Plain(weftT1); _ = t; body })
func (r *rewriter) plainFunc(n ast.Node, ft *ast.FuncType, body *ast.BlockStmt) {
	why := r.pr.plain[n]
	if why == "" || body == nil || len(ft.Params.List) == 0 {
		return
	}
	if _, ok := n.(*ast.FuncDecl); ok {
		r.skip(n, "test", why+": it runs as go test runs it")
	}
	p := ft.Params.List[0]
	if len(p.Names) == 0 || p.Names[0].Name == "_" || r.skipped(n) != "" {
		return
	}
	name := p.Names[0].Name
	outer := r.temp("T")
	r.site(n, nil, "plain test function")
	r.used[weftName] = true
	r.replace(p.Names[0], outer)
	r.ed.insert(r.off(body.Lbrace)+1, " "+name+" := "+weftName+".Plain("+outer+"); _ = "+name+";")
}

// findPlain finds the functions that keep running as go test runs them
// (see plainFunc), and why.
func (pr *pkgRewriter) findPlain() {
	pr.plainParams = map[*ast.StarExpr]bool{}
	decls := map[types.Object]*ast.FuncDecl{}
	for _, f := range pr.pkg.Syntax {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok {
				decls[pr.info.Defs[fd.Name]] = fd
			}
		}
	}
	mark := func(n ast.Node, ft *ast.FuncType, why string) {
		if ft.Params == nil || len(ft.Params.List) == 0 || pr.plain[n] != "" {
			return
		}
		if s, ok := ft.Params.List[0].Type.(*ast.StarExpr); ok && isTestingT(pr.info.TypeOf(s)) {
			pr.plain[n] = why
			pr.plainParams[s] = true
		}
	}
	markArg := func(a ast.Expr, why string) {
		switch a := ast.Unparen(a).(type) {
		case *ast.FuncLit:
			mark(a, a.Type, why)
		case *ast.Ident:
			if fd := decls[pr.info.Uses[a]]; fd != nil {
				mark(fd, fd.Type, why)
			}
		}
	}
	for _, f := range pr.pkg.Syntax {
		var test *ast.FuncDecl
		ast.Inspect(f, func(n ast.Node) bool {
			if fd, ok := n.(*ast.FuncDecl); ok {
				test = fd
			}
			c, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			fn := pr.callee(c)
			if fn == nil || fn.Pkg() == nil {
				return true
			}
			sig := fn.Type().(*types.Signature)
			switch {
			case fn.Name() == "Fuzz" && sig.Recv() != nil && typeName(sig.Recv().Type()) == "testing.F" && len(c.Args) == 1:
				markArg(c.Args[0], "a fuzz target")
				return true
			case fn.Pkg().Path() == "testing/synctest" && (fn.Name() == "Test" || fn.Name() == "Run") && test != nil:
				mark(test, test.Type, "it starts a synctest bubble, whose goroutines weft cannot control")
			case strings.HasPrefix(fn.Pkg().Path(), weftModule+"/") && test != nil && takesTestingT(sig):
				// weft.Property, lin.Check: they run controlled executions
				// themselves, which cannot run inside one.
				mark(test, test.Type, "it calls "+fn.Pkg().Name()+"."+fn.Name()+", which runs weft's executions itself")
			}
			if pr.instrumentedPkg(fn.Pkg()) || sig.Recv() != nil && isTestingT(sig.Recv().Type()) {
				return true // t.Run(name, f): t is a *weft.TB, whose Run takes a func(*weft.TB)
			}
			for i, a := range c.Args {
				if ps, ok := paramType(sig, i, c.Ellipsis.IsValid()).(*types.Signature); ok && ps.Params().Len() > 0 && isTestingT(ps.Params().At(0).Type()) {
					markArg(a, "it is handed to "+fn.Pkg().Name()+"."+fn.Name())
				}
			}
			return true
		})
	}
}

// testParam returns the *testing.T parameter of a test function.
func (r *rewriter) testParam(n *ast.FuncDecl) (*ast.Field, bool) {
	if !r.isTestFile() || n.Recv != nil || n.Body == nil || n.Type.TypeParams != nil ||
		!isTestName(n.Name.Name) || n.Type.Results != nil || len(n.Type.Params.List) != 1 {
		return nil, false
	}
	p := n.Type.Params.List[0]
	if len(p.Names) > 1 || !isTestingT(r.info.TypeOf(p.Type)) {
		return nil, false
	}
	return p, true
}

// testParams returns the parameter types of the file's tests, which keep
// *testing.T.
func (r *rewriter) testParams() map[*ast.StarExpr]bool {
	if r.tparams == nil {
		r.tparams = map[*ast.StarExpr]bool{}
		for _, d := range r.file.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok {
				if p, ok := r.testParam(fd); ok {
					if s, ok := p.Type.(*ast.StarExpr); ok {
						r.tparams[s] = true
					}
				}
			}
		}
	}
	return r.tparams
}

func isTestName(name string) bool {
	rest, ok := strings.CutPrefix(name, "Test")
	if !ok || name == "TestMain" {
		return false
	}
	return rest == "" || !('a' <= rest[0] && rest[0] <= 'z')
}

// isCall reports whether s is the statement recv.method().
func isCall(s ast.Stmt, recv, method string) bool {
	es, ok := s.(*ast.ExprStmt)
	if !ok {
		return false
	}
	c, ok := es.X.(*ast.CallExpr)
	if !ok || len(c.Args) != 0 {
		return false
	}
	sel, ok := c.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != method {
		return false
	}
	id, ok := sel.X.(*ast.Ident)
	return ok && id.Name == recv
}

// weftModule is the path of weft's own module.
const weftModule = "github.com/weftdev/weft"

// takesTestingT reports whether a function has a *testing.T parameter.
func takesTestingT(sig *types.Signature) bool {
	for i := range sig.Params().Len() {
		if isTestingT(sig.Params().At(i).Type()) {
			return true
		}
	}
	return false
}

// testingT returns the package name of e if e is testing.T, the testing
// package's T named through its import, or nil.
func (r *rewriter) testingT(e ast.Expr) *ast.Ident {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "T" {
		return nil
	}
	x, ok := sel.X.(*ast.Ident)
	if !ok {
		return nil
	}
	if pn, ok := r.info.Uses[x].(*types.PkgName); !ok || pn.Imported().Path() != "testing" {
		return nil
	}
	return x
}
