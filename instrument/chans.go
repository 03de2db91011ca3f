package instrument

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"
)

// weftChan reports whether the channel value of e is one of weft's after the
// rewrite. If not, the site at is left alone and reported, as what.
func (r *rewriter) weftChan(e ast.Expr, at ast.Node, what string) bool {
	why := r.rawChan(e)
	if why == "" {
		return true
	}
	if what != "" {
		r.skip(at, what, why)
	}
	return false
}

// rawChan returns why the channel value of e stays a plain Go channel after
// the rewrite: it comes from a package weft does not instrument. It returns
// "" for weft's channels: those made, declared or returned by instrumented
// code, and those of the standard library's types weft replaces.
func (r *rewriter) rawChan(e ast.Expr) string {
	if why := r.pinnedWhy(e); why != "" {
		return why
	}
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		v, ok := r.objectOf(e).(*types.Var)
		if !ok {
			return ""
		}
		if !r.instrumented(v.Pkg()) {
			return notInstrumented(v.Pkg())
		}
		if init, ok := r.inits[v]; ok {
			return r.rawChan(init)
		}
	case *ast.SelectorExpr:
		if sel := r.info.Selections[e]; sel != nil {
			if sel.Kind() == types.FieldVal && !r.instrumented(sel.Obj().Pkg()) && !weftTypes[typeName(sel.Recv())] {
				return notInstrumented(sel.Obj().Pkg())
			}
			return ""
		}
		if v, ok := r.info.Uses[e.Sel].(*types.Var); ok && !r.instrumented(v.Pkg()) {
			return notInstrumented(v.Pkg())
		}
	case *ast.CallExpr:
		if tv, ok := r.info.Types[e.Fun]; ok && tv.IsType() {
			if len(e.Args) == 1 {
				return r.rawChan(e.Args[0])
			}
			return ""
		}
		fn := r.callee(e)
		if fn == nil || r.instrumented(fn.Pkg()) {
			return ""
		}
		if weftFuncs[fn.Pkg().Path()+"."+fn.Name()] {
			return ""
		}
		if sig, ok := fn.Type().(*types.Signature); ok && sig.Recv() != nil && weftTypes[typeName(sig.Recv().Type())] {
			return ""
		}
		return notInstrumented(fn.Pkg())
	case *ast.IndexExpr:
		return r.rawChan(e.X)
	case *ast.StarExpr:
		return r.rawChan(e.X)
	}
	return ""
}

func notInstrumented(p *types.Package) string {
	return fmt.Sprintf("the channel comes from %s, which weft does not instrument (add it with -instrument)", p.Path())
}

func (r *rewriter) objectOf(id *ast.Ident) types.Object {
	if obj := r.info.Uses[id]; obj != nil {
		return obj
	}
	return r.info.Defs[id]
}

// callee returns the function or method a call calls, if static.
func (r *rewriter) callee(c *ast.CallExpr) *types.Func {
	switch f := ast.Unparen(c.Fun).(type) {
	case *ast.Ident:
		fn, _ := r.info.Uses[f].(*types.Func)
		return fn
	case *ast.SelectorExpr:
		if sel := r.info.Selections[f]; sel != nil {
			fn, _ := sel.Obj().(*types.Func)
			return fn
		}
		fn, _ := r.info.Uses[f.Sel].(*types.Func)
		return fn
	case *ast.IndexExpr: // a generic function instantiated explicitly
		if id, ok := f.X.(*ast.Ident); ok {
			fn, _ := r.info.Uses[id].(*types.Func)
			return fn
		}
	}
	return nil
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

// typeText spells a type as the rewritten file does, or reports false when
// it cannot: a type of a package the file does not import, or unexported
// elsewhere.
func (r *rewriter) typeText(t types.Type) (string, bool) {
	switch t := t.(type) {
	case *types.Basic:
		if t.Kind() == types.UnsafePointer || t.Info()&types.IsUntyped != 0 {
			return "", false
		}
		return t.Name(), true
	case *types.Pointer:
		s, ok := r.typeText(t.Elem())
		return "*" + s, ok
	case *types.Slice:
		s, ok := r.typeText(t.Elem())
		return "[]" + s, ok
	case *types.Array:
		s, ok := r.typeText(t.Elem())
		return fmt.Sprintf("[%d]%s", t.Len(), s), ok
	case *types.Map:
		k, ok1 := r.typeText(t.Key())
		v, ok2 := r.typeText(t.Elem())
		return "map[" + k + "]" + v, ok1 && ok2
	case *types.Chan:
		s, ok := r.typeText(t.Elem())
		return "*" + r.sim("Chan") + "[" + s + "]", ok
	case *types.Signature:
		return r.signatureText(t)
	case *types.Interface:
		if t.Empty() {
			return "any", true
		}
	case *types.Struct:
		if t.NumFields() == 0 {
			return "struct{}", true
		}
	case *types.TypeParam:
		return t.Obj().Name(), true
	case *types.Named, *types.Alias:
		return r.namedText(t)
	}
	return "", false
}

func (r *rewriter) namedText(t types.Type) (string, bool) {
	var obj *types.TypeName
	var args *types.TypeList
	switch t := t.(type) {
	case *types.Named:
		obj, args = t.Obj(), t.TypeArgs()
	case *types.Alias:
		obj, args = t.Obj(), t.TypeArgs()
	}
	name := obj.Name()
	switch pkg := obj.Pkg(); {
	case pkg == nil: // error, comparable
	case replacements[pkg.Path()][name] != [2]string{}:
		to := replacements[pkg.Path()][name]
		r.used[to[0]] = true
		name = to[0] + "." + to[1]
	case pkg == r.pkg.Types:
	default:
		imp := r.importName(pkg)
		if imp == "" || !obj.Exported() {
			return "", false
		}
		name = imp + "." + name
	}
	if args != nil && args.Len() > 0 {
		var parts []string
		for i := range args.Len() {
			s, ok := r.typeText(args.At(i))
			if !ok {
				return "", false
			}
			parts = append(parts, s)
		}
		name += "[" + strings.Join(parts, ", ") + "]"
	}
	return name, true
}

func (r *rewriter) signatureText(t *types.Signature) (string, bool) {
	if t.TypeParams() != nil {
		return "", false
	}
	list := func(tup *types.Tuple, variadic bool) (string, bool) {
		var parts []string
		for i := range tup.Len() {
			ty := tup.At(i).Type()
			prefix := ""
			if variadic && i == tup.Len()-1 {
				ty, prefix = ty.(*types.Slice).Elem(), "..."
			}
			s, ok := r.typeText(ty)
			if !ok {
				return "", false
			}
			parts = append(parts, prefix+s)
		}
		return strings.Join(parts, ", "), true
	}
	params, ok1 := list(t.Params(), t.Variadic())
	results, ok2 := list(t.Results(), false)
	s := "func(" + params + ")"
	if t.Results().Len() == 1 {
		s += " " + results
	} else if t.Results().Len() > 1 {
		s += " (" + results + ")"
	}
	return s, ok1 && ok2
}

// importName returns the name under which the file imports pkg, or "".
func (r *rewriter) importName(pkg *types.Package) string {
	for _, spec := range r.file.Imports {
		if strings.Trim(spec.Path.Value, "\"`") != pkg.Path() {
			continue
		}
		if spec.Name != nil {
			if spec.Name.Name == "_" || spec.Name.Name == "." {
				return ""
			}
			return spec.Name.Name
		}
		return pkg.Name()
	}
	return ""
}

// selectStmt rewrites a select statement to a switch on sim.Select:
//
//	select {
//	case v := <-c1:
//	case c2 <- x:
//	default:
//	}
//
// becomes, with the same lines,
//
//	{ var weftv1 T; switch weftsim.Select(weftsim.OnRecv(c1, func(x T) { weftv1 = x }), weftsim.OnSend(c2, x, nil), weftsim.OnDefault(nil)) {
//	case 0: v := weftv1;
//	case 1:
//	case 2:
//	}}
//
// The channel and value expressions are evaluated in source order, once,
// on entering the select, as Go does.
func (r *rewriter) selectStmt(n *ast.SelectStmt) {
	if len(n.Body.List) == 0 {
		// select {} blocks forever, and is a terminating statement.
		r.replace(n, "{ "+r.sim("Select")+"(); panic(\"unreachable\") }")
		return
	}
	// One clause becomes the switch's default: the select's default if it
	// has one, else its last case. A switch with a default whose clauses all
	// end in a terminating statement terminates, as such a select does.
	def := len(n.Body.List) - 1
	for i, s := range n.Body.List {
		if s.(*ast.CommClause).Comm == nil {
			def = i
		}
	}
	var decls, cases, heads []string
	for i, s := range n.Body.List {
		cc := s.(*ast.CommClause)
		head := fmt.Sprintf("case %d:", i)
		if i == def {
			head = "default:"
		}
		switch comm := cc.Comm.(type) {
		case nil:
			cases = append(cases, r.sim("OnDefault")+"(nil)")
		case *ast.SendStmt:
			if !r.weftChan(comm.Chan, n, "select") {
				return
			}
			cases = append(cases, r.sim("OnSend")+"("+r.text(comm.Chan)+", "+r.text(comm.Value)+", nil)")
		case *ast.ExprStmt:
			u := ast.Unparen(comm.X).(*ast.UnaryExpr)
			if !r.weftChan(u.X, n, "select") {
				return
			}
			cases = append(cases, r.sim("OnRecv")+"("+r.text(u.X)+", nil)")
		case *ast.AssignStmt:
			u := ast.Unparen(comm.Rhs[0]).(*ast.UnaryExpr)
			if !r.weftChan(u.X, n, "select") {
				return
			}
			ch, ok := r.typeOf(u.X).(*types.Chan)
			if !ok {
				return
			}
			elem, ok := r.typeText(ch.Elem())
			if !ok {
				r.skip(n, "select", "the type of a received value cannot be spelled here; the select is not rewritten, and will not compile")
				return
			}
			v := r.temp("v")
			decls = append(decls, "var "+v+" "+elem+";")
			vars, recv := []string{v}, r.sim("OnRecv")+"("+r.text(u.X)+", func(x "+elem+") { "+v+" = x })"
			if len(comm.Lhs) == 2 {
				ok := r.temp("ok")
				decls = append(decls, "var "+ok+" bool;")
				vars = append(vars, ok)
				recv = r.sim("OnRecvOK") + "(" + r.text(u.X) + ", func(x " + elem + ", ok bool) { " + v + ", " + ok + " = x, ok })"
			}
			cases = append(cases, recv)
			head += " " + r.bind(comm, vars)
		}
		nl := strings.Count(r.text(&clauseHead{cc}), "\n")
		heads = append(heads, head+strings.Repeat("\n", nl))
	}
	call := r.sim("Select") + "(" + strings.Join(cases, ", ") + ")"
	if strings.Contains(call, "\n") {
		if strings.Contains(call, "//") || strings.Contains(call, "`") {
			r.skip(n, "select", "a case spans lines with a comment or raw string; the select is not rewritten, and will not compile")
			return
		}
		call = strings.ReplaceAll(call, "\n", " ")
	}
	for i, s := range n.Body.List {
		cc := s.(*ast.CommClause)
		r.ed.replace(r.off(cc.Case), r.off(cc.Colon)+1, heads[i])
	}
	r.ed.replace(r.off(n.Select), r.off(n.Body.Lbrace)+1, "{ "+strings.Join(decls, " ")+" switch "+call+" {")
	r.ed.insert(r.off(n.Body.Rbrace)+1, "}")
}

// bind assigns the values received by a select case to the case's own
// variables: v := weftv1, or v, ok = weftv1, weftok2.
func (r *rewriter) bind(comm *ast.AssignStmt, vars []string) string {
	var lhs, rhs []string
	for i, l := range comm.Lhs {
		if comm.Tok == token.DEFINE && isBlank(l) {
			continue
		}
		lhs, rhs = append(lhs, r.text(l)), append(rhs, vars[i])
	}
	if len(lhs) == 0 {
		return ""
	}
	op := " = "
	if comm.Tok == token.DEFINE {
		op = " := "
	}
	return strings.Join(lhs, ", ") + op + strings.Join(rhs, ", ") + ";"
}

// clauseHead is the "case ...:" part of a select clause, as a node.
type clauseHead struct{ cc *ast.CommClause }

func (h *clauseHead) Pos() token.Pos { return h.cc.Case }
func (h *clauseHead) End() token.Pos { return h.cc.Colon + 1 }
