package instrument

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"
)

// goStmt rewrites go f(x) to sim.Go, evaluating the function value and its
// arguments at the go statement, as Go does:
//
//	go f(x, 0, nil)
//
// becomes
//
//	{ wefta1 := x; weftsim.Go(func() { f(wefta1, 0, nil) }) }
//
// Constants and nil are passed as they are (a temporary would take their
// default type, not the parameter's), and so is a function that needs no
// evaluation (a package-level function, generic or not, a method
// expression, a function literal). A builtin runs in the new goroutine as
// it would (close of a weft channel becomes Close). A function of a
// package weft does not instrument is started by a plain go statement: it
// runs outside the controller, as the standard library's code does.
func (r *rewriter) goStmt(n *ast.GoStmt) {
	if why := r.skipped(n); why != "" {
		r.skip(n, "go statement", why)
		return
	}
	call := n.Call
	if lit, ok := ast.Unparen(call.Fun).(*ast.FuncLit); ok && len(call.Args) == 0 {
		r.site(n, nil, "go statement")
		r.replace(n, r.sim("Go")+"("+r.text(lit)+")")
		return
	}
	if why := r.uninstrumentedCallee(call); why != "" {
		r.skip(n, "go statement", why)
		return
	}
	t := &goTemps{r: r}
	callee, builtin := r.goCallee(call, t)
	pre, body := "", ""
	if ts := r.tupleArgs(call); ts != nil {
		// go f(g()), g returning several values: one temporary each,
		// declared apart from the function's.
		pre = t.pre() + strings.Join(ts, ", ") + " := " + r.text(call.Args[0]) + "; "
		body = callee + "(" + strings.Join(ts, ", ") + ")"
	} else {
		args, ok := r.goArgs(n, call, t)
		if !ok {
			return
		}
		dots := ""
		if call.Ellipsis.IsValid() {
			dots = "..."
		}
		if builtin != "" {
			body = r.goBuiltin(n, builtin, args, dots)
		} else {
			body = callee + "(" + strings.Join(args, ", ") + dots + ")"
		}
		pre = t.pre()
	}
	r.site(n, nil, "go statement")
	r.replace(n, "{ "+pre+r.sim("Go")+"(func() { "+body+" }) }")
}

// goTemps are the temporaries of a go statement, declared before it and
// read by the new goroutine: the values the statement evaluates.
type goTemps struct {
	r           *rewriter
	decls, vals []string // temporaries, and what they hold
}

// temp declares a new temporary holding val and returns its name.
func (t *goTemps) temp(prefix, val string) string {
	name := t.r.temp(prefix)
	t.decls, t.vals = append(t.decls, name), append(t.vals, val)
	return name
}

// pre is the declaration of the temporaries, if any, and its semicolon.
func (t *goTemps) pre() string {
	if len(t.decls) == 0 {
		return ""
	}
	return strings.Join(t.decls, ", ") + " := " + strings.Join(t.vals, ", ") + "; "
}

// uninstrumentedCallee says why a go statement is left plain when it
// starts a function of a package weft does not instrument (and does not
// replace), or returns "".
func (r *rewriter) uninstrumentedCallee(call *ast.CallExpr) string {
	fn := r.pr.callee(call)
	if fn == nil || fn.Pkg() == nil || r.instrumented(fn.Pkg()) || replacedCallee(fn) ||
		replacements[fn.Pkg().Path()][fn.Name()] != [2]string{} || r.netConnCall(call) {
		return ""
	}
	return fmt.Sprintf("it starts %s.%s, which weft does not instrument: the goroutine runs outside the controller", fn.Pkg().Name(), fn.Name())
}

// goCallee returns how the new goroutine names the function it calls: as
// written if it needs no evaluation, else a temporary; or, for a builtin,
// the builtin's name.
func (r *rewriter) goCallee(call *ast.CallExpr, t *goTemps) (callee, builtin string) {
	fun := ast.Unparen(call.Fun)
	if id, ok := fun.(*ast.Ident); ok {
		if b, ok := r.info.Uses[id].(*types.Builtin); ok {
			return "", b.Name()
		}
	}
	if r.static(fun) {
		return r.text(call.Fun), ""
	}
	return t.temp("f", r.text(call.Fun)), ""
}

// tupleArgs returns the temporaries of a call whose one argument is a call
// returning several values, or nil for any other call.
func (r *rewriter) tupleArgs(call *ast.CallExpr) []string {
	if len(call.Args) != 1 {
		return nil
	}
	tup, ok := r.info.TypeOf(call.Args[0]).(*types.Tuple)
	if !ok || tup.Len() <= 1 {
		return nil
	}
	var ts []string
	for range tup.Len() {
		ts = append(ts, r.temp("a"))
	}
	return ts
}

// goArgs returns the arguments of the new goroutine's call: constants, nil
// and types as written, every other argument evaluated into a temporary.
// It reports false, having skipped the statement, when an argument's type
// cannot be spelled in the file.
func (r *rewriter) goArgs(n *ast.GoStmt, call *ast.CallExpr, t *goTemps) ([]string, bool) {
	var args []string
	for _, a := range call.Args {
		switch tv := r.info.Types[a]; {
		case tv.Value != nil || tv.IsNil() || tv.IsType():
			args = append(args, r.text(a)) // a constant, nil, make's type: nothing to evaluate
		case r.converted(a, tv.Type):
			s, ok := r.typeText(tv.Type)
			if !ok {
				r.skip(n, "go statement", "an argument's type cannot be spelled here")
				return nil, false
			}
			args = append(args, t.temp("a", s+"("+r.text(a)+")"))
		default:
			args = append(args, t.temp("a", r.text(a)))
		}
	}
	return args, true
}

// static reports whether a function expression needs no evaluation: a
// function or method expression named at package level, or a literal.
func (r *rewriter) static(fun ast.Expr) bool {
	switch f := fun.(type) {
	case *ast.FuncLit:
		return true
	case *ast.Ident:
		_, ok := r.info.Uses[f].(*types.Func)
		return ok
	case *ast.SelectorExpr:
		if sel := r.info.Selections[f]; sel != nil {
			return sel.Kind() == types.MethodExpr
		}
		_, ok := r.info.Uses[f.Sel].(*types.Func)
		return ok
	case *ast.IndexExpr:
		return r.static(f.X)
	case *ast.IndexListExpr:
		return r.static(f.X)
	case *ast.ParenExpr:
		return r.static(f.X)
	}
	return false
}

// converted reports whether an argument's type (the parameter's) differs
// from the type a temporary holding it would get: an untyped comparison
// or shift, converted.
func (r *rewriter) converted(a ast.Expr, t types.Type) bool {
	switch e := ast.Unparen(a).(type) {
	case *ast.BinaryExpr:
		switch e.Op {
		case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ, token.LAND, token.LOR:
			return !types.Identical(t, types.Typ[types.Bool])
		case token.SHL, token.SHR:
			if tv := r.info.Types[e.X]; tv.Value != nil {
				return !types.Identical(t, types.Typ[types.Int])
			}
		}
	case *ast.UnaryExpr:
		if e.Op == token.NOT {
			return !types.Identical(t, types.Typ[types.Bool])
		}
	}
	return false
}

// goBuiltin is the call of a builtin a go statement starts, on its
// evaluated arguments: close of a weft channel is its Close.
func (r *rewriter) goBuiltin(n *ast.GoStmt, name string, args []string, dots string) string {
	if name == "close" && len(args) == 1 {
		arg := n.Call.Args[0]
		if _, ok := r.chanOp(arg, n.Call, "close"); ok {
			if _, w := r.pr.wrapped(r.info.TypeOf(arg)); w {
				return "(" + args[0] + ")." + chanField + ".Close()"
			}
			return "(" + args[0] + ").Close()"
		}
	}
	return name + "(" + strings.Join(args, ", ") + dots + ")"
}
