package instrument

import (
	"go/ast"
	"go/token"
	"go/types"
)

// A named channel type (type sem chan struct{}) becomes, when its values
// are weft's:
//
//   - without methods, an alias of *sim.Chan[T] (type sem = *weftsim.Chan[T]):
//     conversions and assignments keep compiling as they are, since the
//     named type and the channel type are the same type;
//   - with methods (or type parameters), a struct holding the channel
//     (type sem struct{ WeftChan *weftsim.Chan[T] }), since a pointer type
//     cannot have methods: make, conversions, assignments from and to
//     unnamed channel types, nil and comparisons are rewritten around it,
//     and channel operations take its field.
//
// When the flow analysis keeps a named type's values Go channels (one of
// them is handed to code weft does not instrument, or put in an
// interface), the type and every value of it are left alone.

// chanField is the field of a named channel type rewritten to a struct.
const chanField = "WeftChan"

type namedKind int

const (
	notNamedChan namedKind = iota
	aliasChan              // rewritten to an alias of *sim.Chan[T]
	structChan             // rewritten to a struct holding a *sim.Chan[T]
)

// namedChan returns how values of type t, if it is a named channel type
// weft rewrites, are represented.
func (pr *pkgRewriter) namedChan(t types.Type) (*types.TypeName, namedKind) {
	n, ok := types.Unalias(t).(*types.Named)
	if !ok {
		return nil, notNamedChan
	}
	n = n.Origin()
	if _, ok := n.Underlying().(*types.Chan); !ok {
		return nil, notNamedChan
	}
	tn := n.Obj()
	if tn.Pkg() == nil || !pr.instrumentedPkg(tn.Pkg()) || pr.flow.rawWhy(pr.flow.add(tn, nil)) != "" {
		return nil, notNamedChan
	}
	if n.NumMethods() > 0 || n.TypeParams().Len() > 0 {
		return tn, structChan
	}
	return tn, aliasChan
}

// wrapped reports whether values of type t are of a named channel type
// rewritten to a struct.
func (pr *pkgRewriter) wrapped(t types.Type) (*types.TypeName, bool) {
	if t == nil {
		return nil, false
	}
	tn, k := pr.namedChan(t)
	return tn, k == structChan
}

// namedChanDecl rewrites the declaration of a named channel type.
func (r *rewriter) namedChanDecl(ts *ast.TypeSpec) {
	tn, ok := r.info.Defs[ts.Name].(*types.TypeName)
	if !ok || ts.Assign.IsValid() {
		return
	}
	_, kind := r.pr.namedChan(tn.Type())
	if kind == notNamedChan {
		return
	}
	if why := r.skipped(ts); why != "" {
		r.skip(ts, "named channel type", why)
		return
	}
	ch := tn.Type().Underlying().(*types.Chan)
	var elem string
	if ct, ok := ast.Unparen(ts.Type).(*ast.ChanType); ok {
		elem = r.text(ct.Value)
	} else {
		s, ok := r.typeText(ch.Elem())
		if !ok {
			r.skip(ts, "named channel type", "its element type cannot be spelled here")
			return
		}
		elem = s
	}
	r.site(ts, r.pr.flow.add(tn, nil), "named channel type")
	typ := "*" + r.sim("Chan") + "[" + elem + "]"
	if kind == aliasChan {
		r.ed.replace(r.off(ts.Name.End()), r.off(ts.Type.End()), " = "+typ)
		return
	}
	r.replace(ts.Type, "struct{ "+chanField+" "+typ+" }")
}

// namedConversion rewrites an explicit conversion to or from a named
// channel type rewritten to a struct: sem(ch) becomes sem{WeftChan: ch},
// (chan T)(s) takes s's channel.
func (r *rewriter) namedConversion(n *ast.CallExpr, to types.Type) {
	if len(n.Args) != 1 {
		return
	}
	arg := n.Args[0]
	from := r.info.TypeOf(arg)
	_, toW := r.pr.wrapped(to)
	_, fromW := r.pr.wrapped(from)
	switch {
	case toW && from != nil && types.Identical(from, to):
	case toW:
		r.site(n, r.pr.flow.node(n), "conversion")
		if isNil(r.info, arg) {
			r.replace(n, "("+r.text(n.Fun)+"{})")
			return
		}
		r.replace(n, "("+r.text(n.Fun)+"{"+chanField+": "+r.operand(arg)+"})")
	case fromW:
		r.site(n, r.pr.flow.node(n), "conversion")
		r.replace(arg, "("+r.text(arg)+")."+chanField)
	}
}

// conversion is an implicit conversion between a named channel type and
// another type the flow analysis found: src flows from type from into a
// slot of type to (nil: untyped nil).
type conversion struct{ from, to types.Type }

// convert records an implicit conversion of src between named channel
// types and unnamed ones, for the rewrite to spell out if the named type
// becomes a struct.
func (f *flow) convert(src ast.Expr, from, to types.Type) {
	if to == nil {
		return
	}
	if from != nil && types.Identical(from, to) {
		return
	}
	_, toNamed := types.Unalias(to).(*types.Named)
	fromNamed := false
	if from != nil {
		_, fromNamed = types.Unalias(from).(*types.Named)
	}
	if !toNamed && !fromNamed {
		return
	}
	f.conv[ast.Unparen(src)] = conversion{from, to}
}

// convert spells out the implicit conversion of e the flow analysis
// recorded, if a named channel type it involves is rewritten to a struct.
func (r *rewriter) convert(e ast.Expr) {
	c, ok := r.pr.flow.conv[e]
	if !ok {
		return
	}
	_, toW := r.pr.wrapped(c.to)
	_, fromW := r.pr.wrapped(c.from)
	switch {
	case toW:
		name, ok := r.typeText(c.to)
		if !ok {
			r.skip(e, "conversion", "the named channel type cannot be spelled here")
			return
		}
		r.site(e, r.pr.flow.node(e), "conversion")
		if c.from == nil {
			r.replace(e, "("+name+"{})")
			return
		}
		r.replace(e, "("+name+"{"+chanField+": "+r.operand(e)+"})")
	case fromW:
		r.site(e, r.pr.flow.node(e), "conversion")
		r.replace(e, "("+r.text(e)+")."+chanField)
	}
}

// compare rewrites a comparison of a named channel type rewritten to a
// struct with nil, or with another type, to compare channels.
func (r *rewriter) compare(n *ast.BinaryExpr) {
	if n.Op != token.EQL && n.Op != token.NEQ {
		return
	}
	tx, ty := r.info.TypeOf(n.X), r.info.TypeOf(n.Y)
	_, wx := r.pr.wrapped(tx)
	_, wy := r.pr.wrapped(ty)
	if !wx && !wy || wx && wy && types.Identical(tx, ty) {
		return
	}
	for _, e := range []ast.Expr{n.X, n.Y} {
		if _, w := r.pr.wrapped(r.info.TypeOf(e)); w {
			r.replace(e, "("+r.text(e)+")."+chanField)
		}
	}
}
