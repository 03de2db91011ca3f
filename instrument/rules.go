package instrument

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"strings"
)

// selector rewrites a qualified identifier of the standard library that has
// a weft twin: sync.Mutex, time.Sleep, context.WithCancel, ...
func (r *rewriter) selector(n *ast.SelectorExpr) {
	x, ok := n.X.(*ast.Ident)
	if !ok {
		return
	}
	pn, ok := r.info.Uses[x].(*types.PkgName)
	if !ok {
		return
	}
	to, ok := replacements[pn.Imported().Path()][n.Sel.Name]
	if !ok || r.kept(n) {
		return
	}
	r.used[to[0]] = true
	r.gone[x] = true
	r.replace(n, to[0]+"."+to[1])
}

// chanType rewrites a channel type, of any direction, to *sim.Chan.
func (r *rewriter) chanType(n *ast.ChanType) {
	if r.kept(n) {
		return
	}
	r.ed.replace(r.off(n.Begin), r.off(n.Value.Pos()), "*"+r.sim("Chan")+"[")
	r.ed.insert(r.off(n.Value.End()), "]")
}

// testingType rewrites *testing.T to weft's adapter in test files, but in
// the signatures of the tests themselves.
func (r *rewriter) testingType(n *ast.StarExpr) {
	sel, ok := n.X.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "T" || !r.isTestFile() || r.testParams()[n] {
		return
	}
	x, ok := sel.X.(*ast.Ident)
	if !ok {
		return
	}
	if pn, ok := r.info.Uses[x].(*types.PkgName); !ok || pn.Imported().Path() != "testing" {
		return
	}
	r.used[weftName] = true
	r.gone[x] = true
	r.replace(n, "*"+weftName+".TB")
}

func (r *rewriter) isTestFile() bool { return strings.HasSuffix(r.tf.Name(), "_test.go") }

// call rewrites the builtins that operate on channels (make, close, len,
// cap), and converts contexts at the boundary with uninstrumented code.
func (r *rewriter) call(n *ast.CallExpr) {
	r.contextBoundary(n)
	id, ok := n.Fun.(*ast.Ident)
	if !ok {
		return
	}
	if _, ok := r.info.Uses[id].(*types.Builtin); !ok || len(n.Args) == 0 {
		return
	}
	switch id.Name {
	case "make":
		ct, ok := n.Args[0].(*ast.ChanType)
		if !ok || r.kept(n) {
			return
		}
		size := "0"
		if len(n.Args) > 1 {
			size = r.text(n.Args[1])
		}
		// The channel type is already *weftsim.Chan[T]: take its T.
		typ := r.text(ct)
		elem := strings.TrimSuffix(typ[strings.IndexByte(typ, '[')+1:], "]")
		r.replace(n, r.sim("NewChan")+"["+elem+"]("+size+")")
	case "close", "len", "cap":
		if _, ok := r.typeOf(n.Args[0]).(*types.Chan); !ok {
			return
		}
		if !r.weftChan(n.Args[0], n, id.Name) {
			return
		}
		method := map[string]string{"close": "Close", "len": "Len", "cap": "Cap"}[id.Name]
		r.replace(n, "("+r.text(n.Args[0])+")."+method+"()")
	}
}

// receive rewrites <-ch to ch.Recv().
func (r *rewriter) receive(n *ast.UnaryExpr, parent ast.Node) {
	if r.isComm(parent) {
		return // a select's case: the select rewrites it
	}
	if !r.weftChan(n.X, n, "receive") {
		return
	}
	r.replace(n, "("+r.text(n.X)+").Recv()")
}

// send rewrites ch <- v to ch.Send(v).
func (r *rewriter) send(n *ast.SendStmt) {
	if r.isComm(n) {
		return
	}
	if !r.weftChan(n.Chan, n, "send") {
		return
	}
	r.replace(n, "("+r.text(n.Chan)+").Send("+r.text(n.Value)+")")
}

// commaOK rewrites v, ok := <-ch (or =, or var) to v, ok := ch.RecvOK().
func (r *rewriter) commaOK(n ast.Node, lhs, rhs []ast.Expr) {
	if len(lhs) != 2 || len(rhs) != 1 {
		return
	}
	u, ok := ast.Unparen(rhs[0]).(*ast.UnaryExpr)
	if !ok || u.Op != token.ARROW {
		return
	}
	if r.isComm(n) {
		return
	}
	if !r.weftChan(u.X, u, "") {
		return
	}
	r.replace(rhs[0], "("+r.text(u.X)+").RecvOK()")
}

// isComm reports whether statement n is the communication of a select
// case (not a statement of its body).
func (r *rewriter) isComm(n ast.Node) bool {
	cc, ok := r.parentOf(n).(*ast.CommClause)
	return ok && cc.Comm == n
}

// rangeChan rewrites a range loop over a channel to a loop of receives.
// Each iteration declares its variables afresh, as a range loop does since
// Go 1.22; for files of an older language version the variables are
// declared once, outside the loop, as they were then.
func (r *rewriter) rangeChan(n *ast.RangeStmt) {
	ch, ok := r.typeOf(n.X).(*types.Chan)
	if !ok || !r.weftChan(n.X, n, "range") {
		return
	}
	ok1 := r.temp("ok")
	recv := "(" + r.text(n.X) + ").RecvOK()"
	var head, tail string
	switch {
	case n.Key == nil:
		head = "for { if _, " + ok1 + " := " + recv + "; !" + ok1 + " { break };"
	case n.Tok == token.ASSIGN:
		v := r.temp("v")
		head = "for { " + v + ", " + ok1 + " := " + recv + "; if !" + ok1 + " { break }; " + r.text(n.Key) + " = " + v + ";"
	case oldLoopVars(r.goVer) && !isBlank(n.Key):
		typ, ok := r.typeText(ch.Elem())
		if !ok {
			r.skip(n, "range over a channel", "its variable keeps Go 1.22's per-iteration semantics: its type cannot be spelled here")
			head = "for { " + r.text(n.Key) + ", " + ok1 + " := " + recv + "; if !" + ok1 + " { break };"
			break
		}
		head = "{ var " + r.text(n.Key) + " " + typ + "; for { var " + ok1 + " bool; " + r.text(n.Key) + ", " + ok1 + " = " + recv + "; if !" + ok1 + " { break };"
		tail = "}"
	default:
		head = "for { " + r.text(n.Key) + ", " + ok1 + " := " + recv + "; if !" + ok1 + " { break };"
	}
	r.ed.replace(r.off(n.For), r.off(n.Body.Lbrace)+1, head)
	if tail != "" {
		r.ed.insert(r.off(n.Body.Rbrace)+1, tail)
	}
}

// oldLoopVars reports whether a Go language version predates per-iteration
// loop variables (Go 1.22).
func oldLoopVars(v string) bool {
	v = strings.TrimPrefix(v, "go")
	major, minor, _ := strings.Cut(v, ".")
	if major != "1" {
		return false
	}
	m, _, _ := strings.Cut(minor, ".")
	n, err := strconv.Atoi(m)
	return err == nil && n < 22
}

func isBlank(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == "_"
}

// goStmt rewrites go f(x) to sim.Go, evaluating the function value and its
// arguments at the go statement, as Go does.
func (r *rewriter) goStmt(n *ast.GoStmt) {
	call := n.Call
	if lit, ok := call.Fun.(*ast.FuncLit); ok && len(call.Args) == 0 {
		r.replace(n, r.sim("Go")+"("+r.text(lit)+")")
		return
	}
	if id, ok := ast.Unparen(call.Fun).(*ast.Ident); ok {
		if _, ok := r.info.Uses[id].(*types.Builtin); ok {
			r.skip(n, "go statement", "it starts a builtin; the goroutine is not controlled")
			return
		}
	}
	f := r.temp("f")
	vars := []string{f}
	vals := []string{r.text(call.Fun)}
	var args []string
	if len(call.Args) == 1 {
		if tup, ok := r.typeOf(call.Args[0]).(*types.Tuple); ok && tup.Len() > 1 {
			for range tup.Len() {
				a := r.temp("a")
				vars, args = append(vars, a), append(args, a)
			}
			r.replace(n, "{ "+f+" := "+vals[0]+"; "+strings.Join(args, ", ")+" := "+r.text(call.Args[0])+
				"; "+r.sim("Go")+"(func() { "+f+"("+strings.Join(args, ", ")+") }) }")
			return
		}
	}
	for _, a := range call.Args {
		t := r.temp("a")
		vars, vals, args = append(vars, t), append(vals, r.text(a)), append(args, t)
	}
	dots := ""
	if call.Ellipsis.IsValid() {
		dots = "..."
	}
	r.replace(n, "{ "+strings.Join(vars, ", ")+" := "+strings.Join(vals, ", ")+"; "+
		r.sim("Go")+"(func() { "+f+"("+strings.Join(args, ", ")+dots+") }) }")
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
func (r *rewriter) testFunc(n *ast.FuncDecl) {
	param, ok := r.testParam(n)
	if !ok {
		return
	}
	name := "_"
	if len(param.Names) == 1 {
		name = param.Names[0].Name
	}
	start, sep := r.off(n.Body.Lbrace)+1, " "
	if len(n.Body.List) > 0 && name != "_" && isCall(n.Body.List[0], name, "Parallel") {
		start, sep = r.off(n.Body.List[0].End()), "; "
	}
	r.used[weftName] = true
	r.ed.insert(start, sep+weftName+".Test("+name+", func("+name+" *"+weftName+".TB) {")
	r.ed.insert(r.off(n.Body.Rbrace), "})")
}

// testParam returns the *testing.T parameter of a test function.
func (r *rewriter) testParam(n *ast.FuncDecl) (*ast.Field, bool) {
	if !r.isTestFile() || n.Recv != nil || n.Body == nil || n.Type.TypeParams != nil ||
		!isTestName(n.Name.Name) || n.Type.Results != nil || len(n.Type.Params.List) != 1 {
		return nil, false
	}
	p := n.Type.Params.List[0]
	if len(p.Names) > 1 {
		return nil, false
	}
	ptr, ok := r.typeOf(p.Type).(*types.Pointer)
	if !ok {
		return nil, false
	}
	named, ok := ptr.Elem().(*types.Named)
	if !ok || named.Obj().Pkg() == nil || named.Obj().Pkg().Path() != "testing" || named.Obj().Name() != "T" {
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

func (r *rewriter) typeOf(e ast.Expr) types.Type {
	if t := r.info.TypeOf(e); t != nil {
		return t.Underlying()
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

// fixImports adds the imports of weft's packages the file now uses, on the
// package clause's line, and blanks the imports whose every use was
// rewritten away.
func (r *rewriter) fixImports() {
	uses := map[*types.PkgName]int{}
	for id, obj := range r.info.Uses {
		if pn, ok := obj.(*types.PkgName); ok && !r.gone[id] && r.tf == r.fset.File(id.Pos()) {
			uses[pn]++
		}
	}
	for _, spec := range r.file.Imports {
		pn, _ := r.info.Defs[spec.Name].(*types.PkgName)
		if spec.Name == nil {
			pn, _ = r.info.Implicits[spec].(*types.PkgName)
		}
		if pn == nil || uses[pn] > 0 || (spec.Name != nil && (spec.Name.Name == "_" || spec.Name.Name == ".")) {
			continue
		}
		r.replace(spec, "_ "+spec.Path.Value)
	}
	var add []string
	for _, name := range []string{simName, ctxName, weftName} {
		if r.used[name] {
			add = append(add, "; import "+name+" "+strconv.Quote(importPaths[name]))
		}
	}
	if len(add) > 0 {
		r.ed.insert(r.off(r.file.Name.End()), strings.Join(add, ""))
	}
}

// contextBoundary converts contexts where instrumented code calls code weft
// does not instrument: a rewritten context handed to it becomes a standard
// one (simctx.ToStd), and a standard context it returns becomes weft's
// (simctx.FromStd), so that http.NewRequestWithContext(ctx, ...) and
// ctx := req.Context() keep compiling and working.
func (r *rewriter) contextBoundary(n *ast.CallExpr) {
	fn := r.callee(n)
	if fn == nil || r.instrumented(fn.Pkg()) || replacements[fn.Pkg().Path()][fn.Name()] != [2]string{} {
		return
	}
	sig := fn.Type().(*types.Signature)
	if sig.Recv() != nil && weftTypes[typeName(sig.Recv().Type())] {
		return // a method of a type weft replaces: it is weft's now
	}
	for i, arg := range n.Args {
		var pt types.Type
		switch {
		case sig.Variadic() && i >= sig.Params().Len()-1:
			if n.Ellipsis.IsValid() {
				continue
			}
			pt = sig.Params().At(sig.Params().Len() - 1).Type().(*types.Slice).Elem()
		case i < sig.Params().Len():
			pt = sig.Params().At(i).Type()
		}
		if typeName(pt) == "context.Context" && isContext(r.info.TypeOf(arg)) {
			r.used[ctxName] = true
			r.replace(arg, ctxName+".ToStd("+r.text(arg)+")")
		}
	}
	if res := sig.Results(); res.Len() == 1 && typeName(res.At(0).Type()) == "context.Context" {
		r.used[ctxName] = true
		r.replace(n, ctxName+".FromStd("+r.text(n)+")")
	} else if res.Len() > 1 {
		for i := range res.Len() {
			if typeName(res.At(i).Type()) == "context.Context" {
				r.skip(n, "context", fmt.Sprintf("%s.%s returns a standard context among other results; convert it with simctx.FromStd", fn.Pkg().Name(), fn.Name()))
			}
		}
	}
}

// isContext reports whether a value's type is context.Context, which the
// rewrite turns into weft's.
func isContext(t types.Type) bool { return typeName(t) == "context.Context" }
