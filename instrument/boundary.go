package instrument

import (
	"fmt"
	"go/ast"
	"go/types"
)

// contextBoundary converts contexts where instrumented code calls code weft
// does not instrument: a rewritten context handed to it becomes a standard
// one (simctx.ToStd), and a standard context it returns becomes weft's
// (simctx.FromStd), so that http.NewRequestWithContext(ctx, ...) and
// ctx := req.Context() keep compiling and working. So are the contexts
// handed to a function of ours that keeps the standard one (stdctx.go),
// and the contexts it returns.
func (r *rewriter) contextBoundary(n *ast.CallExpr) {
	fn := r.pr.callee(n)
	if fn == nil || fn.Pkg() == nil || replacedCallee(fn) {
		return
	}
	outside := !r.instrumented(fn.Pkg()) || r.pr.inWholeFile(fn)
	// A function of ours that keeps the standard context (see stdctx.go)
	// takes it as one outside does.
	if !outside && r.pr.stdContextWhy(fn) == "" {
		return
	}
	sig := fn.Type().(*types.Signature)
	for i, arg := range n.Args {
		pt := paramType(sig, i, n.Ellipsis.IsValid())
		if pt != nil && isContextType(pt) && r.ourContext(r.info.TypeOf(arg), pt) {
			if why := r.skipped(arg); why != "" {
				continue
			}
			r.site(arg, nil, "context conversion")
			r.used[ctxName] = true
			r.replace(arg, ctxName+".ToStd("+r.text(arg)+")")
		}
	}
	// Its context results are standard ones, outside and in a function of
	// ours that keeps the standard context (see stdReturns) alike.
	if res := sig.Results(); res.Len() == 1 && isContextType(res.At(0).Type()) {
		if why := r.skipped(n); why != "" {
			return
		}
		r.site(n, nil, "context conversion")
		r.used[ctxName] = true
		r.replace(n, ctxName+".FromStd("+r.text(n)+")")
	} else if res.Len() > 1 {
		for i := range res.Len() {
			if isContextType(res.At(i).Type()) {
				r.skip(n, "context", fmt.Sprintf("%s.%s returns a standard context among other results; convert it with simctx.FromStd", fn.Pkg().Name(), fn.Name()))
			}
		}
	}
}

// ourContext reports whether the values of type t, handed where a
// context.Context std is wanted, are weft's contexts after the rewrite:
// context.Context itself, or an interface type of a rewritten package
// defined from it (cilium/hive's type HookContext context.Context, whose
// values went to http.Server.Shutdown unconverted).
func (r *rewriter) ourContext(t, std types.Type) bool {
	if isContextType(t) {
		return true
	}
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && r.instrumented(n.Obj().Pkg()) &&
		types.Identical(n.Underlying(), std.Underlying())
}

// paramType returns the type of the parameter argument i of a call of sig
// goes to (nil for a spread variadic argument).
func paramType(sig *types.Signature, i int, spread bool) types.Type {
	n := sig.Params().Len()
	switch {
	case n == 0:
		return nil
	case sig.Variadic() && i >= n-1:
		if spread {
			return nil
		}
		return sig.Params().At(n - 1).Type().(*types.Slice).Elem()
	case i < n:
		return sig.Params().At(i).Type()
	}
	return nil
}

// testingBoundary hands the *testing.T behind a rewritten test's *weft.TB
// to a function weft does not instrument that wants a *testing.T: what it
// reports goes to the test directly, not to the execution.
func (r *rewriter) testingBoundary(n *ast.CallExpr) {
	fn := r.pr.callee(n)
	if fn == nil || fn.Pkg() == nil || r.instrumented(fn.Pkg()) {
		return
	}
	sig := fn.Type().(*types.Signature)
	for i, arg := range n.Args {
		pt := paramType(sig, i, n.Ellipsis.IsValid())
		if pt == nil || !isTestingT(pt) || !isTestingT(r.info.TypeOf(arg)) || r.skipped(arg) != "" {
			continue
		}
		r.site(arg, nil, "*testing.T conversion")
		r.replace(arg, "("+r.text(arg)+").Std()")
		r.skip(arg, "*testing.T", fmt.Sprintf("handed to %s.%s, which weft does not instrument: its failures fail the test, not the execution", fn.Pkg().Name(), fn.Name()))
	}
}

// isTestingT reports whether t is *testing.T.
func isTestingT(t types.Type) bool {
	p, ok := t.(*types.Pointer)
	return ok && typeName(p.Elem()) == "testing.T"
}

// typeName returns "pkgpath.Name" of a (pointer to a) named type.
func typeName(t types.Type) string {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || n.Obj().Pkg() == nil {
		return ""
	}
	return n.Obj().Pkg().Path() + "." + n.Obj().Name()
}
