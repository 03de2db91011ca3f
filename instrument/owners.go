package instrument

import (
	"go/ast"
	"go/types"
)

// owners maps the type expressions of a file that weft rewrites (channel
// types, sync's and time's types) to the node whose class decides whether
// they are rewritten: the variable, field, parameter or named type they
// declare, or the expression (make, new, a conversion, a composite
// literal) they are the type of. A type expression inside a function type
// belongs to whoever owns the function type; its parameters join that
// class.
func (f *flow) owners(file *ast.File) {
	ast.Inspect(file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			f.ownFuncDecl(n)
		case *ast.FuncLit:
			if sig, ok := f.info.TypeOf(n).(*types.Signature); ok {
				f.ownSig(n.Type, sig)
			}
		case *ast.ValueSpec:
			f.ownValueSpec(n)
		case *ast.TypeSpec:
			if tn, ok := f.info.Defs[n.Name].(*types.TypeName); ok {
				f.ownTypeParams(n.TypeParams)
				f.own(n.Type, f.add(tn, nil))
			}
		case *ast.CompositeLit:
			if n.Type != nil {
				f.own(n.Type, f.node(n))
			}
		case *ast.CallExpr:
			f.ownCall(n)
		case *ast.TypeAssertExpr:
			if n.Type != nil {
				f.own(n.Type, f.node(n))
			}
		case *ast.TypeSwitchStmt:
			f.ownTypeSwitch(n)
		case *ast.IndexExpr:
			f.ownTypeArgs([]ast.Expr{n.Index})
		case *ast.IndexListExpr:
			f.ownTypeArgs(n.Indices)
		}
		return true
	})
}

// ownFuncDecl assigns the type expressions of a function's or method's
// declaration: its receiver and its signature.
func (f *flow) ownFuncDecl(n *ast.FuncDecl) {
	fn, ok := f.pr.objectOf(n.Name).(*types.Func)
	if !ok {
		return
	}
	sig := fn.Type().(*types.Signature)
	if n.Recv != nil && sig.Recv() != nil {
		f.ownFields(n.Recv, []*types.Var{sig.Recv()})
	}
	f.ownSig(n.Type, sig)
}

// ownValueSpec assigns the type of a var or const declaration to the
// variables it declares, one class for all of them.
func (f *flow) ownValueSpec(n *ast.ValueSpec) {
	if n.Type == nil {
		return
	}
	var owner any
	for _, id := range n.Names {
		if obj := f.info.Defs[id]; obj != nil {
			x := f.add(canon(obj), obj.Type())
			if owner == nil {
				owner = x
			}
			f.union(owner, x)
		}
	}
	if owner == nil {
		owner = f.add(n, nil) // var _ chan int
	}
	f.own(n.Type, owner)
}

// ownCall assigns the type of a conversion, or make's or new's type
// argument, to the call.
func (f *flow) ownCall(n *ast.CallExpr) {
	if tv, ok := f.info.Types[n.Fun]; ok && tv.IsType() {
		f.own(n.Fun, f.add(n, tv.Type))
		return
	}
	if id, ok := ast.Unparen(n.Fun).(*ast.Ident); ok && len(n.Args) > 0 {
		if _, ok := f.info.Uses[id].(*types.Builtin); ok && (id.Name == "make" || id.Name == "new") {
			f.own(n.Args[0], f.add(n, f.info.TypeOf(n)))
		}
	}
}

// ownTypeSwitch assigns the types of a type switch's cases to their
// clauses, each joined to the operand's class: what comes out of an
// interface is what went in.
func (f *flow) ownTypeSwitch(n *ast.TypeSwitchStmt) {
	x := f.node(typeSwitchOperand(n))
	for _, s := range n.Body.List {
		cc := s.(*ast.CaseClause)
		owner := f.add(cc, nil)
		f.union(owner, x)
		if obj, ok := f.info.Implicits[cc].(*types.Var); ok {
			f.union(owner, f.add(obj, obj.Type()))
		}
		for _, e := range cc.List {
			f.own(e, owner)
		}
	}
}

// ownTypeArgs gives each type argument of an instantiation a class of its
// own.
func (f *flow) ownTypeArgs(idx []ast.Expr) {
	for _, e := range idx {
		if tv, ok := f.info.Types[e]; ok && tv.IsType() {
			f.own(e, f.add(e, tv.Type))
		}
	}
}

// ownSig assigns the type expressions of a function's signature to its
// parameters and results.
func (f *flow) ownSig(ft *ast.FuncType, sig *types.Signature) {
	f.ownTypeParams(ft.TypeParams)
	if ft.Params != nil {
		f.ownFields(ft.Params, tupleVars(sig.Params()))
	}
	if ft.Results != nil {
		f.ownFields(ft.Results, tupleVars(sig.Results()))
	}
}

func (f *flow) ownTypeParams(tparams *ast.FieldList) {
	if tparams == nil {
		return
	}
	for _, fld := range tparams.List {
		for _, id := range fld.Names {
			if tn, ok := f.info.Defs[id].(*types.TypeName); ok {
				f.own(fld.Type, f.add(tn, nil))
			}
		}
	}
}

func tupleVars(t *types.Tuple) []*types.Var {
	out := make([]*types.Var, t.Len())
	for i := range t.Len() {
		out[i] = t.At(i)
	}
	return out
}

// ownFields assigns each field's type expression to its variables, in
// order; the variables of one field join one class.
func (f *flow) ownFields(fl *ast.FieldList, vars []*types.Var) {
	k := 0
	for _, fld := range fl.List {
		n := max(len(fld.Names), 1)
		if k+n > len(vars) {
			return
		}
		var owner any
		for _, v := range vars[k : k+n] {
			x := f.add(canon(v), v.Type())
			if owner == nil {
				owner = x
			}
			f.union(owner, x)
		}
		k += n
		f.own(fld.Type, owner)
	}
}

// own assigns the parts of type expression e weft rewrites to owner. The
// fields of a struct type and the methods of an interface type own their
// own types.
func (f *flow) own(e ast.Expr, owner any) {
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.StructType:
			if st, ok := f.info.TypeOf(n).(*types.Struct); ok {
				vars := make([]*types.Var, st.NumFields())
				for i := range vars {
					vars[i] = st.Field(i)
				}
				f.ownFields(n.Fields, vars)
			}
			return false
		case *ast.InterfaceType:
			for _, m := range n.Methods.List {
				if len(m.Names) == 0 {
					f.own(m.Type, owner)
					continue
				}
				fn, ok := f.info.Defs[m.Names[0]].(*types.Func)
				ft, ok2 := m.Type.(*ast.FuncType)
				if ok && ok2 {
					f.ownSig(ft, fn.Type().(*types.Signature))
				}
			}
			return false
		case *ast.FuncType:
			if sig, ok := f.info.TypeOf(n).(*types.Signature); ok {
				f.joinTypeSig(owner, sig)
			}
		case *ast.ChanType:
			f.owner[n] = owner
		case *ast.SelectorExpr:
			if tv, ok := f.info.Types[n]; ok && tv.IsType() && replacedType(tv.Type) {
				f.owner[n] = owner
			}
			return false
		case *ast.Ident:
			f.owner[n] = owner // a named channel type's name, in a conversion or make
		case *ast.FuncLit, *ast.CompositeLit:
			return false
		}
		return true
	})
}

// typeSwitchOperand returns the interface value a type switch switches on.
func typeSwitchOperand(n *ast.TypeSwitchStmt) ast.Expr {
	var e ast.Expr
	switch a := n.Assign.(type) {
	case *ast.AssignStmt:
		e = a.Rhs[0]
	case *ast.ExprStmt:
		e = a.X
	}
	if ta, ok := ast.Unparen(e).(*ast.TypeAssertExpr); ok {
		return ta.X
	}
	return nil
}
