package instrument

import (
	"fmt"
	"go/ast"
	"go/types"
	"slices"
	"strings"
)

// A function whose type must stay identical to one that code weft does not
// instrument spells keeps the standard library's context in its parameters
// and results:
// a method of a type converted to an interface of such code (a
// log/slog.Handler's Enabled and Handle), a function literal handed to it
// (runtime/pprof.Do's), and, the same way, a method of an interface of the
// package whose values are converted to such an interface, and the methods
// that implement that one. Such a function takes the standard context and
// converts it at its start (simctx.FromStd, as what code weft does not
// instrument returns is), and a call of it from rewritten code converts its
// context arguments (simctx.ToStd, as calls into such code do): see
// contextBoundary. Its context results (grpc's ServerStream.Context, which
// a stream type of the package implements) are converted at its returns
// (simctx.ToStd), and back where rewritten code calls it (simctx.FromStd,
// as what code weft does not instrument returns is).

// stdContexts records the functions whose context parameters keep the
// standard library's type because the value src, of a function or of a
// type with methods, goes where dst is, of type dt.
func (f *flow) stdContexts(dst any, dt types.Type, src ast.Expr) {
	st := f.info.TypeOf(src)
	if dt == nil || st == nil || replacedType(dt) || replacedType(st) {
		return
	}
	if iface, ok := dt.Underlying().(*types.Interface); ok {
		f.implementsStd(st, dt, iface)
		return
	}
	if sig, ok := coreType(dt).(*types.Signature); ok && hasContext(sig) && f.spelledOutside(dst, dt) {
		f.stdFuncValue(ast.Unparen(src), fmt.Sprintf("it is handed to %s as a %s", outsideName(dst, dt), types.TypeString(dt, nil)))
	}
}

// implementsStd records the methods of st that implement a method of the
// interface dt taking or returning a standard context.
func (f *flow) implementsStd(st, dt types.Type, iface *types.Interface) {
	for i := range iface.NumMethods() {
		m := iface.Method(i)
		if !hasContext(m.Type().(*types.Signature)) || !f.pr.stdContext(m) {
			continue
		}
		obj, _, _ := types.LookupFieldOrMethod(st, true, m.Pkg(), m.Name())
		impl, ok := obj.(*types.Func)
		if !ok || impl.Origin() == m.Origin() || !hasContext(impl.Type().(*types.Signature)) {
			continue
		}
		f.pr.keepStdContext(impl, fmt.Sprintf("it implements %s.%s", typeString(dt), m.Name()))
	}
}

// spelledOutside reports whether the function type dt of the slot dst is
// spelled by code weft does not instrument: a parameter or a field of such
// code, or a named type of it.
func (f *flow) spelledOutside(dst any, dt types.Type) bool {
	if n, ok := types.Unalias(dt).(*types.Named); ok && n.Obj().Pkg() != nil && !f.pr.instrumentedPkg(n.Obj().Pkg()) {
		return true
	}
	obj, ok := dst.(types.Object)
	return ok && obj.Pkg() != nil && !f.pr.instrumentedPkg(obj.Pkg())
}

// outsideName names the slot dst (or its type) for a message.
func outsideName(dst any, dt types.Type) string {
	if obj, ok := dst.(types.Object); ok && obj.Pkg() != nil {
		return obj.Pkg().Path() + "'s " + obj.Name()
	}
	return typeString(dt)
}

// stdFuncValue records that the function value e keeps the standard
// context: a function literal, or a function or method of the package.
func (f *flow) stdFuncValue(e ast.Expr, why string) {
	var id *ast.Ident
	switch e := e.(type) {
	case *ast.FuncLit:
		if s, ok := spanOf(f.pr.fset, e.Pos(), e.End()); ok {
			f.pr.g.dec.addStdCtxLit(s, why)
		}
		return
	case *ast.Ident:
		id = e
	case *ast.SelectorExpr:
		id = e.Sel
	default:
		return
	}
	if fn, ok := f.pr.objectOf(id).(*types.Func); ok {
		f.pr.keepStdContext(fn, why)
	}
}

// keepStdContext records that fn's context parameters keep the standard
// library's type, if fn is rewritten.
func (pr *pkgRewriter) keepStdContext(fn *types.Func, why string) {
	fn = fn.Origin()
	if fn.Pkg() == nil || !pr.instrumentedPkg(fn.Pkg()) || replacedCallee(fn) {
		return
	}
	if k, ok := objKeyOf(pr.fset, fn); ok {
		pr.g.dec.addStdCtx(k, why)
	}
}

// stdContext reports whether fn's context parameters are the standard
// library's: fn belongs to code weft does not instrument or to a file left
// as it is, or was decided so.
func (pr *pkgRewriter) stdContext(fn *types.Func) bool {
	if fn.Pkg() == nil {
		return false
	}
	return !pr.instrumentedPkg(fn.Pkg()) || pr.inWholeFile(fn) || pr.stdContextWhy(fn) != ""
}

// inWholeFile reports whether fn is declared in a file left as it is, whose
// contexts stay the standard library's, as outside: the calls of the
// rewritten files convert theirs, instead of failing to check and leaving
// their own packages whole in turn.
func (pr *pkgRewriter) inWholeFile(fn *types.Func) bool {
	k, ok := objKeyOf(pr.fset, fn.Origin())
	return ok && pr.g.dec.whole[k.file] != ""
}

// stdContextWhy returns why the context parameters of fn, of a rewritten
// package, keep the standard library's type, or "".
func (pr *pkgRewriter) stdContextWhy(fn *types.Func) string {
	if k, ok := objKeyOf(pr.fset, fn.Origin()); ok {
		return pr.g.dec.stdCtx[k]
	}
	return ""
}

// hasContext reports whether sig takes or returns a context.Context.
func hasContext(sig *types.Signature) bool {
	for _, tup := range []*types.Tuple{sig.Params(), sig.Results()} {
		for v := range tup.Variables() {
			if isContextType(v.Type()) {
				return true
			}
		}
	}
	return false
}

// typeString spells t with package names, not paths.
func typeString(t types.Type) string {
	return types.TypeString(t, func(p *types.Package) string { return p.Name() })
}

// addStdCtx records that the context parameters of the function k keep
// the standard library's type; it reports whether that is new.
func (d *decisions) addStdCtx(k objKey, why string) bool { return decide(d, d.stdCtx, k, k.file, why) }

// addStdCtxLit records the same of the function literal at s.
func (d *decisions) addStdCtxLit(s span, why string) bool {
	return decide(d, d.stdCtxLit, s, s.file, why)
}

// findStdContexts finds the functions, function literals and interface
// methods of the file whose context parameters keep the standard library's
// type, and the type expressions of those parameters, which selector
// leaves as they are.
func (r *rewriter) findStdContexts() {
	r.stdFuncs = map[ast.Node]bool{}
	r.stdTypes = map[ast.Expr]bool{}
	keep := func(n ast.Node, ft *ast.FuncType, why string) {
		if why == "" || ft.Params == nil {
			return
		}
		r.stdFuncs[n] = true
		for _, fl := range []*ast.FieldList{ft.Params, ft.Results} {
			if fl == nil {
				continue
			}
			for _, fld := range fl.List {
				if sel, ok := fld.Type.(*ast.SelectorExpr); ok && isContextType(r.info.TypeOf(sel)) {
					r.stdTypes[sel] = true
				}
			}
		}
		r.skip(n, "context parameter", "it keeps the standard library's context, converted in the function: "+why)
	}
	ast.Inspect(r.file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			if fn, ok := r.info.Defs[n.Name].(*types.Func); ok {
				keep(n, n.Type, r.pr.stdContextWhy(fn))
			}
		case *ast.FuncLit:
			if s, ok := spanOf(r.fset, n.Pos(), n.End()); ok {
				keep(n, n.Type, r.pr.g.dec.stdCtxLit[s])
			}
		case *ast.InterfaceType:
			for _, m := range n.Methods.List {
				ft, ok := m.Type.(*ast.FuncType)
				if !ok || len(m.Names) != 1 {
					continue
				}
				if fn, ok := r.info.Defs[m.Names[0]].(*types.Func); ok {
					keep(m, ft, r.pr.stdContextWhy(fn))
				}
			}
		}
		return true
	})
}

// stdPrologue renames the standard context parameters of a function that
// keeps them, and converts them at its start under their own names.
func (r *rewriter) stdPrologue(n ast.Node, ft *ast.FuncType, body *ast.BlockStmt) {
	if body == nil || !r.stdFuncs[n] {
		return
	}
	var pro strings.Builder
	for _, fld := range ft.Params.List {
		if !r.stdTypes[fld.Type] {
			continue
		}
		for _, id := range fld.Names {
			if id.Name == "_" {
				continue
			}
			std := r.temp("Ctx")
			r.replace(id, std)
			r.used[ctxName] = true
			fmt.Fprintf(&pro, " %s := %s.FromStd(%s); _ = %s;", id.Name, ctxName, std, id.Name)
		}
	}
	if pro.Len() > 0 {
		r.ed.insert(r.off(body.Lbrace)+1, pro.String())
	}
	r.stdReturns(ft, body)
}

// stdReturns converts the context results of the returns of a function
// that keeps the standard context in its results (not those of the
// function literals it holds): what it returns is the package's own.
func (r *rewriter) stdReturns(ft *ast.FuncType, body *ast.BlockStmt) {
	if ft.Results == nil {
		return
	}
	var std []types.Type // by result: the standard context, or nil
	for _, fld := range ft.Results.List {
		var t types.Type
		if r.stdTypes[fld.Type] {
			t = r.info.TypeOf(fld.Type)
		}
		for range max(len(fld.Names), 1) {
			std = append(std, t)
		}
	}
	if !slices.ContainsFunc(std, func(t types.Type) bool { return t != nil }) {
		return
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			if len(n.Results) != len(std) {
				return true // a bare return, or return f(): left to the type check
			}
			for i, e := range n.Results {
				if std[i] != nil && !isNil(r.info, e) && r.ourContext(r.info.TypeOf(e), std[i]) && r.skipped(e) == "" {
					r.site(e, nil, "context conversion")
					r.used[ctxName] = true
					r.replace(e, ctxName+".ToStd("+r.text(e)+")")
				}
			}
		}
		return true
	})
}

// contextDone rewrites ctx.Done() whose channel must stay Go's (handed to
// reflect.ValueOf, as cilium/statedb's WatchSet.Wait hands it with its
// other channels to reflect.Select) to the standard view's,
// simctx.ToStd(ctx).Done(), which closes when ctx is done: weft's channel
// would reach reflect as a pointer.
func (r *rewriter) contextDone(n *ast.CallExpr) {
	sel, ok := ast.Unparen(n.Fun).(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Done" || len(n.Args) != 0 {
		return
	}
	s, ok := r.info.Selections[sel]
	if !ok || s.Kind() != types.MethodVal {
		return
	}
	std := s.Obj().Type().(*types.Signature).Recv().Type()
	if !isContextType(std) || !r.ourContext(r.info.TypeOf(sel.X), std) {
		return
	}
	if r.pr.flow.rawWhy(r.pr.flow.node(n)) == "" || r.skipped(n) != "" {
		return
	}
	r.site(n, nil, "context's Done")
	r.used[ctxName] = true
	r.replace(n, ctxName+".ToStd("+r.text(sel.X)+").Done()")
}
