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
	sel, ok := n.X.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "T" || r.testParams()[n] || r.pr.fuzzParams[n] {
		return
	}
	x, ok := sel.X.(*ast.Ident)
	if !ok {
		return
	}
	if pn, ok := r.info.Uses[x].(*types.PkgName); !ok || pn.Imported().Path() != "testing" {
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

// testFunc makes a test's body run under weft's controller:
//
//	func TestX(t *testing.T) { body }
//
// becomes, on the same lines,
//
//	func TestX(t *testing.T) { weftt.Test(t, func(t *weftt.TB) { body }) }
//
// A leading t.Parallel() stays outside, where it means what it always did.
// An unnamed or blank parameter is named, for the call.
func (r *rewriter) testFunc(n *ast.FuncDecl) {
	param, ok := r.testParam(n)
	if !ok {
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

// fuzzFunc keeps a fuzz target running as go test runs it, outside the
// controller: its *testing.T stays (f.Fuzz checks the signature), and the
// body gets a *weft.TB that reports to it, for the helpers it calls:
//
//	f.Fuzz(func(t *testing.T, b []byte) { body })
//
// becomes
//
//	f.Fuzz(func(weftT1 *testing.T, b []byte) { t := weftt.Plain(weftT1); _ = t; body })
func (r *rewriter) fuzzFunc(n ast.Node, ft *ast.FuncType, body *ast.BlockStmt) {
	if !r.pr.fuzz[n] || body == nil || len(ft.Params.List) == 0 {
		return
	}
	p := ft.Params.List[0]
	if len(p.Names) == 0 || p.Names[0].Name == "_" {
		return
	}
	if why := r.skipped(n); why != "" {
		r.skip(n, "fuzz target", why)
		return
	}
	name := p.Names[0].Name
	outer := r.temp("T")
	r.site(n, nil, "fuzz target")
	r.used[weftName] = true
	r.replace(p.Names[0], outer)
	r.ed.insert(r.off(body.Lbrace)+1, " "+name+" := "+weftName+".Plain("+outer+"); _ = "+name+";")
}

// findFuzz finds the functions handed to testing.F.Fuzz: literals, and
// functions of the package.
func (pr *pkgRewriter) findFuzz() {
	pr.fuzzParams = map[*ast.StarExpr]bool{}
	decls := map[types.Object]*ast.FuncDecl{}
	for _, f := range pr.pkg.Syntax {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok {
				decls[pr.info.Defs[fd.Name]] = fd
			}
		}
	}
	mark := func(n ast.Node, ft *ast.FuncType) {
		if ft.Params == nil || len(ft.Params.List) == 0 {
			return
		}
		if s, ok := ft.Params.List[0].Type.(*ast.StarExpr); ok && isTestingT(pr.info.TypeOf(s)) {
			pr.fuzz[n] = true
			pr.fuzzParams[s] = true
		}
	}
	for _, f := range pr.pkg.Syntax {
		ast.Inspect(f, func(n ast.Node) bool {
			c, ok := n.(*ast.CallExpr)
			if !ok || len(c.Args) != 1 {
				return true
			}
			fn := pr.callee(c)
			if fn == nil || fn.Name() != "Fuzz" || fn.Type().(*types.Signature).Recv() == nil ||
				typeName(fn.Type().(*types.Signature).Recv().Type()) != "testing.F" {
				return true
			}
			switch a := ast.Unparen(c.Args[0]).(type) {
			case *ast.FuncLit:
				mark(a, a.Type)
			case *ast.Ident:
				if fd := decls[pr.info.Uses[a]]; fd != nil {
					mark(fd, fd.Type)
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
