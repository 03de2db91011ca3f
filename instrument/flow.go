package instrument

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"
)

// A value weft rewrites (a channel, a sync or atomic type, a timer) must
// have one representation wherever it goes: a channel handed to code weft
// does not instrument, or stored in an interface, stays a Go channel, and
// so must every variable, field, parameter and expression it passes
// through. flow groups the variables, fields, parameters, results, named
// types and expressions of a package that hold such values into classes
// (a union-find over the assignments, calls, returns, sends, composite
// literals and conversions of the package), and marks a class raw, with
// the reason, when one of its members must keep the standard library's
// type. The rewriter keeps the types and operations of raw classes as
// they are, and rewrites the others.
//
// The nodes of the union-find are types.Objects (their origin, for generic
// code) and ast.Nodes (expressions that make values: make, conversions,
// composite literals, function literals, calls).
type flow struct {
	pr     *pkgRewriter
	info   *types.Info
	parent map[any]any
	why    map[any]string   // a class's root → why it keeps Go's types
	owner  map[ast.Node]any // a type expression → the node whose class decides it
	added  map[any]bool
	// contents maps a class's root to the node of the values its holders
	// hold in interfaces (see holders.go).
	contents map[any]any
	// conv holds the expressions that flow into a slot of a named channel
	// type rewritten to a struct, or out of one, with the conversion the
	// rewrite needs (see named.go).
	conv map[ast.Expr]conversion
	// comps are the comparisons of channel values, whose operands must
	// agree.
	seeds []seed
}

type seed struct {
	node any
	why  string
}

func newFlow(pr *pkgRewriter) *flow {
	return &flow{
		pr:       pr,
		info:     pr.info,
		parent:   map[any]any{},
		why:      map[any]string{},
		owner:    map[ast.Node]any{},
		added:    map[any]bool{},
		contents: map[any]any{},
		conv:     map[ast.Expr]conversion{},
	}
}

func (f *flow) find(x any) any {
	for {
		p, ok := f.parent[x]
		if !ok || p == x {
			return x
		}
		if gp, ok := f.parent[p]; ok && gp != p {
			f.parent[x] = gp
		}
		x = p
	}
}

func (f *flow) union(a, b any) {
	if a == nil || b == nil {
		return
	}
	ra, rb := f.find(a), f.find(b)
	if ra == rb {
		return
	}
	f.parent[ra] = rb
	if w := f.why[ra]; w != "" && f.why[rb] == "" {
		f.why[rb] = w
	}
	f.mergeContents(ra, rb)
}

// seed marks x's class raw.
func (f *flow) seed(x any, why string) {
	if x == nil {
		return
	}
	r := f.find(x)
	if f.why[r] == "" {
		f.why[r] = why
	}
}

// rawWhy returns why x's class keeps Go's types, or "".
func (f *flow) rawWhy(x any) string {
	if x == nil {
		return ""
	}
	return f.why[f.find(x)]
}

// canon returns the node of an object: its origin, for generic code.
func canon(obj types.Object) any {
	switch o := obj.(type) {
	case *types.Var:
		return o.Origin()
	case *types.Func:
		return o.Origin()
	case nil:
		return nil
	}
	return obj
}

// add registers node x, of type t, and seeds it: from the decisions of
// the rewrite (a site the safety net made raw, a file left as it is, a
// decision taken in another package), and for an object of a package weft
// does not instrument. Every value of a named type that holds a channel
// joins the type's class.
func (f *flow) add(x any, t types.Type) any {
	if x == nil || f.added[x] {
		return x
	}
	f.added[x] = true
	if why := f.pr.seedOf(x); why != "" {
		f.seed(x, why)
	}
	if why := f.pr.contentsSeedOf(x); why != "" {
		f.seed(f.contentsOf(x), why)
	}
	f.contain(x)
	if t != nil {
		for _, tn := range namedIn(t) {
			f.union(x, f.add(tn, nil))
		}
	}
	return x
}

// node returns the node of expression e: the object it reads, or e itself
// for an expression that makes a value; nil for what holds no value weft
// rewrites.
func (f *flow) node(e ast.Expr) any {
	if e == nil {
		return nil
	}
	t := f.info.TypeOf(e)
	switch e := e.(type) {
	case *ast.ParenExpr:
		return f.node(e.X)
	case *ast.Ident:
		obj := f.pr.objectOf(e)
		switch obj := obj.(type) {
		case *types.Var:
			return f.add(canon(obj), obj.Type())
		case *types.Func:
			return f.funcValue(obj)
		}
		return nil
	case *ast.SelectorExpr:
		if sel := f.info.Selections[e]; sel != nil {
			switch sel.Kind() {
			case types.FieldVal:
				if holder, via := fieldHolder(sel); weftTypes[typeName(holder)] {
					// timer.C: the timer's, and through an embedded
					// *time.Timer, the embedded field's.
					if via != nil {
						return f.add(canon(via), via.Type())
					}
					return f.node(e.X)
				}
				return f.add(canon(sel.Obj()), sel.Obj().Type())
			case types.MethodVal, types.MethodExpr:
				if fn, ok := sel.Obj().(*types.Func); ok && replacedCallee(fn) {
					return f.add(e, t)
				}
				return f.funcValue(sel.Obj().(*types.Func))
			}
		}
		switch obj := f.info.Uses[e.Sel].(type) {
		case *types.Var:
			return f.add(canon(obj), obj.Type())
		case *types.Func:
			if replacedCallee(obj) {
				return f.add(e, t)
			}
			return f.funcValue(obj)
		}
		return nil
	case *ast.IndexExpr:
		return f.node(e.X)
	case *ast.IndexListExpr:
		return f.node(e.X)
	case *ast.SliceExpr:
		return f.node(e.X)
	case *ast.StarExpr:
		return f.node(e.X)
	case *ast.UnaryExpr:
		if e.Op == token.ARROW && f.elemsHeld(e.X) {
			return f.contentsOf(f.node(e.X))
		}
		if e.Op == token.AND || e.Op == token.ARROW {
			return f.node(e.X)
		}
		return nil
	case *ast.CallExpr:
		if tv, ok := f.info.Types[e.Fun]; ok && !tv.IsType() {
			if fn := f.pr.callee(e); fn != nil && !replacedCallee(fn) {
				sig := fn.Origin().Type().(*types.Signature)
				if sig.Results().Len() == 1 {
					v := sig.Results().At(0)
					return f.add(canon(v), v.Type())
				}
			}
		}
		return f.add(e, t)
	case *ast.CompositeLit, *ast.FuncLit, *ast.TypeAssertExpr:
		return f.add(e, t)
	}
	return nil
}

// elemsHeld reports whether the values that channel ch carries are the
// contents of its class (see holders.go), not members of it: they hold
// interfaces, which may hold channels, and nothing that weft rewrites
// spelled in their type (chan any, chan error-like interfaces, chan
// []any). Such a channel's type is spelled alike whatever its values hold,
// so where they go need not decide it: hashicorp/raft's fsmMutateCh, a
// chan interface{} whose values its loop prints with %#v when it does not
// know their type, stayed Go's, shared with fmt, and its goroutines
// polled it (millions of events in a test of a few seconds). A channel
// that stays Go's keeps its contents Go's (rawContents).
func (f *flow) elemsHeld(ch ast.Expr) bool {
	c, ok := coreType(f.info.TypeOf(ch)).(*types.Chan)
	return ok && !f.carries(c.Elem()) && holdsInterface(c.Elem(), map[types.Type]bool{})
}

// elems returns the node of the values channel ch carries: the contents
// of its class when elemsHeld, its class otherwise.
func (f *flow) elems(ch ast.Expr) any {
	if f.elemsHeld(ch) {
		return f.contentsOf(f.node(ch))
	}
	return f.node(ch)
}

// methodExpr reports whether fun is a method expression, (*T).M, whose
// function type takes the receiver as its first parameter.
func (f *flow) methodExpr(fun ast.Expr) bool {
	sel, ok := ast.Unparen(fun).(*ast.SelectorExpr)
	if !ok {
		return false
	}
	s := f.info.Selections[sel]
	return s != nil && s.Kind() == types.MethodExpr
}

// fieldHolder returns the type whose field a field selection selects, and
// the embedded field it goes through to get there (nil when the field is
// the receiver's own): for r.C, with r of a struct type embedding
// *time.Timer, *time.Timer and the embedded field.
func fieldHolder(sel *types.Selection) (types.Type, *types.Var) {
	t := sel.Recv()
	var via *types.Var
	path := sel.Index()
	for _, i := range path[:len(path)-1] {
		if p, ok := t.Underlying().(*types.Pointer); ok {
			t = p.Elem()
		}
		st, ok := t.Underlying().(*types.Struct)
		if !ok {
			return sel.Recv(), nil
		}
		via = st.Field(i)
		t = via.Type()
	}
	return t, via
}

// funcValue returns the node of a function used as a value: its
// parameters and results join its class, since a function value's type
// is spelled whole.
func (f *flow) funcValue(fn *types.Func) any {
	fn = fn.Origin()
	if f.added[fn] {
		return fn
	}
	f.add(fn, nil)
	if replacedCallee(fn) {
		return fn
	}
	sig := fn.Type().(*types.Signature)
	f.joinSig(fn, sig)
	return fn
}

// joinSig adds the parameters and results of sig that hold values weft
// rewrites to x's class, and those that may hold a channel in an
// interface: a dynamic call joins its arguments and results to the class
// of the function value it calls (see call), so the function's own
// parameters and results must be there too, or a channel passed as an
// any through a function value would be asserted back as the other
// representation.
func (f *flow) joinSig(x any, sig *types.Signature) { f.joinVars(x, sig, true) }

// joinTypeSig is joinSig for a function type spelled in a type expression
// (a field's func(chan int)), whose parameters are no variables anyone
// reads: only those that hold what the rewrite spells join. (An unnamed
// one is known across packages by its file, line and empty name, which it
// shares with the unnamed parameters and results of the function whose
// signature spells it.)
func (f *flow) joinTypeSig(x any, sig *types.Signature) { f.joinVars(x, sig, false) }

func (f *flow) joinVars(x any, sig *types.Signature, anys bool) {
	// Not every interface: joining an error result would tie a function's
	// channels to every error it returns, and a context parameter to every
	// request, and those reach code weft does not instrument.
	for _, tup := range []*types.Tuple{sig.Params(), sig.Results()} {
		for i := range tup.Len() {
			if v := tup.At(i); f.carries(v.Type()) || (anys && holdsAny(v.Type())) {
				f.union(x, f.add(canon(v), v.Type()))
			}
		}
	}
}

// holdsAny reports whether t is, or is built of, interfaces without
// methods (any), outside named structs: the interfaces a channel of an
// unnamed type can be stored in. (A named channel type that has methods
// may be stored in other interfaces, but its values join its type's class
// wherever they are: see add.)
func holdsAny(t types.Type) bool {
	return holdsInterfaceOf(t, func(i *types.Interface) bool { return i.NumMethods() == 0 }, map[types.Type]bool{})
}

// flowInto records that the value of src goes where dst is, of type dt:
// an assignment, an argument, a result, an element. A channel put in an
// interface joins the interface's class, as does an interface value that
// may hold one: the representation of a channel in an interface is
// decided by where the interface goes (to fmt, gob or reflect, which must
// see a Go channel; to a type assertion, which must expect what it
// holds).
func (f *flow) flowInto(dst any, dt types.Type, src ast.Expr) {
	st := f.info.TypeOf(src)
	if st == nil || isNil(f.info, src) {
		if dt != nil && isNil(f.info, src) {
			f.convert(src, nil, dt)
		}
		return
	}
	if dt != nil && types.IsInterface(dt) {
		if isChanLike(st) || (types.IsInterface(st) && !isError(st)) || f.isFuncCarrying(st) {
			f.union(dst, f.node(src))
		}
		f.implements(st, dt)
		f.stdContexts(dst, dt, src)
		return
	}
	f.stdContexts(dst, dt, src)
	if !f.tracked(st) && (dt == nil || !f.tracked(dt)) {
		return
	}
	f.union(dst, f.node(src))
	if dt != nil {
		f.convert(src, st, dt)
	}
}

// implements joins the methods of st with those of the interface dt it is
// converted to: their signatures must stay identical.
func (f *flow) implements(st, dt types.Type) {
	if replacedType(dt) || replacedType(st) {
		return // context.Context: converted at the boundary instead
	}
	iface, ok := dt.Underlying().(*types.Interface)
	if !ok {
		return
	}
	for i := range iface.NumMethods() {
		m := iface.Method(i)
		obj, _, _ := types.LookupFieldOrMethod(st, true, m.Pkg(), m.Name())
		impl, ok := obj.(*types.Func)
		if !ok || impl.Origin() == m.Origin() {
			continue
		}
		a, b := impl.Origin().Type().(*types.Signature), m.Origin().Type().(*types.Signature)
		f.joinTuples(a.Params(), b.Params())
		f.joinTuples(a.Results(), b.Results())
	}
}

func (f *flow) joinTuples(a, b *types.Tuple) {
	for i := range min(a.Len(), b.Len()) {
		x, y := a.At(i), b.At(i)
		if f.tracked(x.Type()) || f.tracked(y.Type()) {
			f.union(f.add(canon(x), x.Type()), f.add(canon(y), y.Type()))
		}
	}
}

// isChanLike reports whether a value of type t is a channel: converted to
// an interface, it would show weft's type to reflection.
// errorType is the universe's error. Its values are taken to hold no
// channel: an error type that is a channel is unheard of, and an error
// type that holds one (a struct) is rewritten alike wherever it goes. So
// errors do not tie the channels they travel through (a chan error) to
// the code they are handed to (testify's assertions, which reach fmt and
// encoding/json), where every channel of errors would stay Go's.
var errorType = types.Universe.Lookup("error").Type()

func isError(t types.Type) bool { return types.Identical(t, errorType) }

// isFuncCarrying reports whether t is a function type whose parameters or
// results hold what weft rewrites: put in an interface, such a function
// goes where the interface goes, and its signature with it (gocron's
// NewTask hands a func(chan struct{}) and its argument, as anys, to
// reflect, which compares the argument's type with the parameter's).
func (f *flow) isFuncCarrying(t types.Type) bool {
	_, ok := t.Underlying().(*types.Signature)
	return ok && f.carries(t)
}

func isChanLike(t types.Type) bool {
	_, ok := t.Underlying().(*types.Chan)
	return ok
}

func isNil(info *types.Info, e ast.Expr) bool {
	tv, ok := info.Types[e]
	return ok && tv.IsNil()
}

// carries reports whether values of type t hold something weft rewrites,
// outside the fields of named structs (which are nodes of their own): a
// channel, a sync or atomic type, a timer.
func (f *flow) carries(t types.Type) bool { return carries(t, map[types.Type]bool{}) }

// tracked reports whether values of type t join classes: those that hold
// what weft rewrites, and those that hold interfaces, which may hold
// channels.
func (f *flow) tracked(t types.Type) bool {
	return carries(t, map[types.Type]bool{}) || holdsInterface(t, map[types.Type]bool{})
}

// holdsInterface reports whether t is, or is built of, interfaces, outside
// named structs.
func holdsInterface(t types.Type, seen map[types.Type]bool) bool {
	return holdsInterfaceOf(t, func(*types.Interface) bool { return true }, seen)
}

// holdsInterfaceOf reports whether t is, or is built of, interfaces that
// ok accepts, outside named structs. error is not among them.
func holdsInterfaceOf(t types.Type, ok func(*types.Interface) bool, seen map[types.Type]bool) bool {
	if t == nil || seen[t] {
		return false
	}
	seen[t] = true
	switch t := t.(type) {
	case *types.Interface:
		return ok(t)
	case *types.Alias:
		return holdsInterfaceOf(types.Unalias(t), ok, seen)
	case *types.Named:
		if isError(t) {
			return false
		}
		switch u := t.Underlying().(type) {
		case *types.Struct:
			return false
		default:
			return holdsInterfaceOf(u, ok, seen)
		}
	case *types.Pointer:
		return holdsInterfaceOf(t.Elem(), ok, seen)
	case *types.Slice:
		return holdsInterfaceOf(t.Elem(), ok, seen)
	case *types.Array:
		return holdsInterfaceOf(t.Elem(), ok, seen)
	case *types.Chan:
		return holdsInterfaceOf(t.Elem(), ok, seen)
	case *types.Map:
		return holdsInterfaceOf(t.Key(), ok, seen) || holdsInterfaceOf(t.Elem(), ok, seen)
	case *types.Signature:
		return holdsInterfaceOf(t.Params(), ok, seen) || holdsInterfaceOf(t.Results(), ok, seen)
	case *types.Tuple:
		for i := range t.Len() {
			if holdsInterfaceOf(t.At(i).Type(), ok, seen) {
				return true
			}
		}
	case *types.Struct:
		for i := range t.NumFields() {
			if holdsInterfaceOf(t.Field(i).Type(), ok, seen) {
				return true
			}
		}
	}
	return false
}

func carries(t types.Type, seen map[types.Type]bool) bool {
	if t == nil || seen[t] {
		return false
	}
	seen[t] = true
	switch t := t.(type) {
	case *types.Chan:
		return true
	case *types.Alias:
		return carries(types.Unalias(t), seen)
	case *types.Named:
		if replacedType(t) {
			// context's types are converted where they cross over instead.
			return t.Obj().Pkg().Path() != "context"
		}
		if pkg := t.Obj().Pkg(); pkg != nil && pkg.Path() == SimPath {
			return true // a rewritten type: sim.Chan, sim.Mutex, ...
		}
		switch t.Underlying().(type) {
		case *types.Struct, *types.Interface:
			return false
		}
		return carries(t.Underlying(), seen)
	case *types.Pointer:
		return carries(t.Elem(), seen)
	case *types.Slice:
		return carries(t.Elem(), seen)
	case *types.Array:
		return carries(t.Elem(), seen)
	case *types.Map:
		return carries(t.Key(), seen) || carries(t.Elem(), seen)
	case *types.Signature:
		return carries(t.Params(), seen) || carries(t.Results(), seen)
	case *types.Tuple:
		for i := range t.Len() {
			if carries(t.At(i).Type(), seen) {
				return true
			}
		}
	case *types.Struct:
		for i := range t.NumFields() {
			if carries(t.Field(i).Type(), seen) {
				return true
			}
		}
	case *types.TypeParam:
		return coreChan(t)
	}
	return false
}

// coreChan reports whether a type parameter's constraint admits only
// channel types.
func coreChan(tp *types.TypeParam) bool {
	iface, ok := tp.Constraint().Underlying().(*types.Interface)
	if !ok || iface.NumEmbeddeds() == 0 {
		return false
	}
	for i := range iface.NumEmbeddeds() {
		switch e := iface.EmbeddedType(i).(type) {
		case *types.Union:
			for j := range e.Len() {
				if _, ok := e.Term(j).Type().Underlying().(*types.Chan); !ok {
					return false
				}
			}
			return true
		case *types.Chan:
			return true
		}
	}
	return false
}

// namedIn returns the named types (and aliases, and channel type
// parameters) that t is built of, outside named structs and interfaces,
// whose values hold channels: every value of such a type joins its class.
func namedIn(t types.Type) []*types.TypeName {
	var out []*types.TypeName
	seen := map[types.Type]bool{}
	var walk func(types.Type)
	walk = func(t types.Type) {
		if t == nil || seen[t] {
			return
		}
		seen[t] = true
		switch t := t.(type) {
		case *types.Alias:
			if carries(t, map[types.Type]bool{}) {
				out = append(out, t.Obj())
			}
			walk(types.Unalias(t))
		case *types.Named:
			if replacedType(t) {
				return
			}
			switch t.Underlying().(type) {
			case *types.Struct, *types.Interface:
				return
			}
			if carries(t, map[types.Type]bool{}) {
				out = append(out, t.Origin().Obj())
			}
		case *types.TypeParam:
			if coreChan(t) {
				out = append(out, t.Obj())
			}
		case *types.Pointer:
			walk(t.Elem())
		case *types.Slice:
			walk(t.Elem())
		case *types.Array:
			walk(t.Elem())
		case *types.Chan:
			walk(t.Elem())
		case *types.Map:
			walk(t.Key())
			walk(t.Elem())
		case *types.Signature:
			walk(t.Params())
			walk(t.Results())
		case *types.Tuple:
			for i := range t.Len() {
				walk(t.At(i).Type())
			}
		case *types.Struct:
			for i := range t.NumFields() {
				walk(t.Field(i).Type())
			}
		}
	}
	walk(t)
	return out
}

// replacedType reports whether t (or what it points to) is a type of the
// standard library that weft replaces: sync's, sync/atomic's, time's
// timers, context.Context.
func replacedType(t types.Type) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || n.Obj().Pkg() == nil {
		return false
	}
	return replacements[n.Obj().Pkg().Path()][n.Obj().Name()] != [2]string{}
}

func isContextType(t types.Type) bool { return typeName(t) == "context.Context" }

// replacedCallee reports whether fn is a function or method of the
// standard library that weft replaces: its parameters are weft's.
func replacedCallee(fn *types.Func) bool {
	if fn.Pkg() == nil {
		return false
	}
	sig, _ := fn.Type().(*types.Signature)
	if sig != nil && sig.Recv() != nil {
		return replacedType(sig.Recv().Type())
	}
	return replacements[fn.Pkg().Path()][fn.Name()] != [2]string{}
}

// build adds the flows of the package's files.
func (f *flow) build(files []*ast.File) {
	for _, file := range files {
		f.owners(file)
		var sigs []*types.Signature
		var stack []ast.Node
		ast.Inspect(file, func(n ast.Node) bool {
			if n == nil {
				switch stack[len(stack)-1].(type) {
				case *ast.FuncDecl, *ast.FuncLit:
					sigs = sigs[:len(sigs)-1]
				}
				stack = stack[:len(stack)-1]
				return true
			}
			stack = append(stack, n)
			switch n := n.(type) {
			case *ast.FuncDecl:
				sig, _ := f.pr.objectOf(n.Name).Type().(*types.Signature)
				sigs = append(sigs, sig)
			case *ast.FuncLit:
				sig, _ := f.info.TypeOf(n).(*types.Signature)
				sigs = append(sigs, sig)
				if sig != nil {
					f.joinSig(f.add(n, sig), sig)
				}
			case *ast.AssignStmt:
				f.assign(n)
			case *ast.ValueSpec:
				f.valueSpec(n)
			case *ast.ReturnStmt:
				if len(sigs) > 0 && sigs[len(sigs)-1] != nil {
					f.ret(n, sigs[len(sigs)-1])
				}
			case *ast.CallExpr:
				f.call(n)
			case *ast.SendStmt:
				if ch, ok := coreType(f.info.TypeOf(n.Chan)).(*types.Chan); ok {
					f.flowInto(f.elems(n.Chan), ch.Elem(), n.Value)
				}
			case *ast.RangeStmt:
				for _, kv := range []ast.Expr{n.Key, n.Value} {
					if kv != nil && f.tracked(f.info.TypeOf(kv)) {
						f.union(f.node(kv), f.elems(n.X))
					}
				}
			case *ast.CompositeLit:
				f.compositeLit(n)
			case *ast.BinaryExpr:
				if (n.Op == token.EQL || n.Op == token.NEQ) && !isNil(f.info, n.X) && !isNil(f.info, n.Y) &&
					f.carries(f.info.TypeOf(n.X)) {
					f.union(f.node(n.X), f.node(n.Y))
				}
			case *ast.TypeAssertExpr:
				if n.Type != nil && f.carries(f.info.TypeOf(n)) {
					f.union(f.node(n), f.node(n.X)) // what comes out of an interface is what went in
				}
			}
			return true
		})
	}
	f.rawContents()
}

func (f *flow) assign(n *ast.AssignStmt) {
	if len(n.Lhs) == len(n.Rhs) {
		for i, l := range n.Lhs {
			if isBlank(l) {
				f.flowInto(nil, nil, n.Rhs[i])
				continue
			}
			f.flowInto(f.node(l), f.info.TypeOf(l), n.Rhs[i])
		}
		return
	}
	if len(n.Rhs) != 1 {
		return
	}
	f.tuple(n.Lhs, n.Rhs[0])
}

// tuple records a, b := f(), and v, ok := <-ch, m[k], x.(T).
func (f *flow) tuple(lhs []ast.Expr, rhs ast.Expr) {
	switch r := ast.Unparen(rhs).(type) {
	case *ast.CallExpr:
		fn := f.pr.callee(r)
		if fn == nil || replacedCallee(fn) {
			for _, l := range lhs {
				if !isBlank(l) && f.tracked(f.info.TypeOf(l)) {
					f.union(f.node(l), f.node(r.Fun))
				}
			}
			return
		}
		res := fn.Origin().Type().(*types.Signature).Results()
		for i, l := range lhs {
			if i < res.Len() && !isBlank(l) && f.tracked(res.At(i).Type()) {
				f.union(f.node(l), f.add(canon(res.At(i)), res.At(i).Type()))
			}
		}
	default:
		if len(lhs) > 0 && !isBlank(lhs[0]) {
			f.flowInto(f.node(lhs[0]), f.info.TypeOf(lhs[0]), rhs)
		}
	}
}

func (f *flow) valueSpec(n *ast.ValueSpec) {
	if len(n.Values) == len(n.Names) {
		for i, id := range n.Names {
			if id.Name == "_" {
				f.flowInto(nil, f.info.TypeOf(n.Type), n.Values[i])
				continue
			}
			obj := f.info.Defs[id]
			if obj == nil {
				continue
			}
			f.flowInto(f.add(canon(obj), obj.Type()), obj.Type(), n.Values[i])
		}
		return
	}
	if len(n.Values) == 1 {
		lhs := make([]ast.Expr, len(n.Names))
		for i, id := range n.Names {
			lhs[i] = id
		}
		f.tuple(lhs, n.Values[0])
	}
}

func (f *flow) ret(n *ast.ReturnStmt, sig *types.Signature) {
	res := sig.Results()
	if len(n.Results) == res.Len() {
		for i, e := range n.Results {
			v := res.At(i)
			f.flowInto(f.add(canon(v), v.Type()), v.Type(), e)
		}
		return
	}
	if len(n.Results) == 1 {
		if c, ok := ast.Unparen(n.Results[0]).(*ast.CallExpr); ok {
			if fn := f.pr.callee(c); fn != nil && !replacedCallee(fn) {
				f.joinTuples(res, fn.Origin().Type().(*types.Signature).Results())
			}
		}
	}
}

// call records the flows of a call: arguments into parameters, and the
// operands of conversions and of the builtins that move values.
func (f *flow) call(c *ast.CallExpr) {
	if tv, ok := f.info.Types[c.Fun]; ok && tv.IsType() {
		if len(c.Args) == 1 {
			f.flowInto(f.node(c), tv.Type, c.Args[0])
			delete(f.conv, ast.Unparen(c.Args[0])) // an explicit conversion: see namedConversion
		}
		return
	}
	if id, ok := ast.Unparen(c.Fun).(*ast.Ident); ok {
		if _, ok := f.info.Uses[id].(*types.Builtin); ok {
			switch id.Name {
			case "append", "copy":
				x := f.node(c)
				if id.Name == "copy" && len(c.Args) > 0 {
					x = f.node(c.Args[0])
				}
				for _, a := range c.Args {
					if f.tracked(f.info.TypeOf(a)) {
						f.union(x, f.node(a))
					}
				}
			}
			return
		}
	}
	sig, ok := coreType(f.info.TypeOf(c.Fun)).(*types.Signature)
	if !ok {
		return
	}
	fn := f.pr.callee(c)
	if fn != nil && replacedCallee(fn) {
		f.held(c, fn)
		return
	}
	if fn != nil {
		f.containerRecv(c, fn)
	}
	var params *types.Tuple // the callee's own parameters, for a static call
	if fn != nil {
		osig := fn.Origin().Type().(*types.Signature)
		params = osig.Params()
		if f.methodExpr(c.Fun) {
			// (*T).M(x, args): the receiver is the first argument.
			params = types.NewTuple(append([]*types.Var{osig.Recv()}, slices.Collect(params.Variables())...)...)
		} else if recv := osig.Recv(); recv != nil && f.tracked(recv.Type()) {
			if sel, ok := ast.Unparen(c.Fun).(*ast.SelectorExpr); ok {
				f.union(f.add(canon(recv), recv.Type()), f.node(sel.X))
			}
		}
	} else if f.tracked(sig) {
		f.union(f.node(c), f.node(c.Fun)) // a dynamic call: its results are the function value's
	}
	dst := func(i int) (any, types.Type) {
		n := sig.Params().Len()
		if n == 0 {
			return nil, nil
		}
		j := min(i, n-1)
		t := sig.Params().At(j).Type()
		if sig.Variadic() && i >= n-1 && !c.Ellipsis.IsValid() {
			t = t.(*types.Slice).Elem()
		}
		if params == nil {
			return f.node(c.Fun), t
		}
		v := params.At(j)
		return f.add(canon(v), v.Type()), t
	}
	if len(c.Args) == 1 && sig.Params().Len() > 1 {
		if inner, ok := ast.Unparen(c.Args[0]).(*ast.CallExpr); ok {
			if g := f.pr.callee(inner); g != nil && params != nil && !replacedCallee(g) {
				f.joinTuples(params, g.Origin().Type().(*types.Signature).Results())
			}
			return
		}
	}
	typeOnly := typeOnlyArgs(f.info, c, fn)
	for i, a := range c.Args {
		d, t := dst(i)
		if d == nil && t == nil || typeOnly[i] {
			continue
		}
		f.flowInto(d, t, a)
	}
}

func (f *flow) compositeLit(n *ast.CompositeLit) {
	t := coreType(f.info.TypeOf(n))
	if p, ok := t.(*types.Pointer); ok {
		t = coreType(p.Elem())
	}
	switch t := t.(type) {
	case *types.Struct:
		for i, e := range n.Elts {
			var fld *types.Var
			val := e
			if kv, ok := e.(*ast.KeyValueExpr); ok {
				val = kv.Value
				if id, ok := kv.Key.(*ast.Ident); ok {
					fld, _ = f.info.Uses[id].(*types.Var)
				}
			} else if i < t.NumFields() {
				fld = t.Field(i)
			}
			if fld != nil {
				f.flowInto(f.add(canon(fld), fld.Type()), fld.Type(), val)
			}
		}
	case *types.Slice, *types.Array, *types.Map:
		var key, elem types.Type
		switch t := t.(type) {
		case *types.Slice:
			elem = t.Elem()
		case *types.Array:
			elem = t.Elem()
		case *types.Map:
			key, elem = t.Key(), t.Elem()
		}
		x := f.node(n)
		for _, e := range n.Elts {
			val := e
			if kv, ok := e.(*ast.KeyValueExpr); ok {
				val = kv.Value
				if key != nil {
					f.flowInto(x, key, kv.Key)
				}
			}
			f.flowInto(x, elem, val)
		}
	}
}

// coreType returns t's underlying type, or for a type parameter the
// single underlying type of its constraint's terms, if any.
func coreType(t types.Type) types.Type {
	if t == nil {
		return nil
	}
	tp, ok := t.(*types.TypeParam)
	if !ok {
		return t.Underlying()
	}
	iface, ok := tp.Constraint().Underlying().(*types.Interface)
	if !ok {
		return nil
	}
	var core types.Type
	for i := range iface.NumEmbeddeds() {
		var terms []types.Type
		switch e := iface.EmbeddedType(i).(type) {
		case *types.Union:
			for j := range e.Len() {
				terms = append(terms, e.Term(j).Type().Underlying())
			}
		default:
			terms = append(terms, e.Underlying())
		}
		for _, u := range terms {
			if core == nil {
				core = u
			} else if !types.Identical(core, u) {
				return nil
			}
		}
	}
	return core
}
