package instrument

import (
	"go/ast"
	"go/token"
	"go/types"
	"sort"
)

// Some types of the standard library hold values in interfaces and hand
// them back: sync.Map, atomic.Value, a context's values (which weft
// replaces), sync.Pool and container/* (which it leaves as they are, see
// containers). A channel stored in one and asserted back after is one
// value: it and the assertion must be in one class, whatever the packages
// that store and load it. The values a holder holds are a node of their
// own, its contents, not the holder's class: a channel that must stay Go's
// does not keep the sync.Map it is stored in Go's. But a holder that stays
// Go's (handed to code weft does not instrument) keeps its contents Go's:
// that code may hand them on to anyone.

// A contentsKey is the node of the values held by the holders of a class.
type contentsKey struct{ of any }

// contentsOf returns the node of the values held by x's class.
func (f *flow) contentsOf(x any) any {
	if x == nil {
		return nil
	}
	r := f.find(x)
	if c, ok := f.contents[r]; ok {
		return c
	}
	c := f.add(contentsKey{r}, nil)
	f.contents[r] = c
	return c
}

// mergeContents moves the contents of root a, merged into root b, to b.
func (f *flow) mergeContents(a, b any) {
	ca, ok := f.contents[a]
	if !ok {
		return
	}
	delete(f.contents, a)
	if cb, ok := f.contents[b]; ok {
		f.union(ca, cb)
		return
	}
	f.contents[b] = ca
}

// rawContents makes the contents of every raw class raw, up to a fixed
// point (a context held in a context). The classes are visited in an
// order of their own, so that a contents held by two raw classes always
// tells the same reason.
func (f *flow) rawContents() {
	for changed := true; changed; {
		changed = false
		type held struct {
			why      string
			pos      token.Pos
			contents any
		}
		var list []held
		for r, c := range f.contents {
			if why := f.why[f.find(r)]; why != "" && f.rawWhy(c) == "" {
				list = append(list, held{why, posOfNode(r), c})
			}
		}
		sort.Slice(list, func(i, j int) bool {
			if list[i].why != list[j].why {
				return list[i].why < list[j].why
			}
			return list[i].pos < list[j].pos
		})
		for _, h := range list {
			if f.rawWhy(h.contents) == "" {
				f.seed(h.contents, "it is held by a value that keeps Go's types: "+h.why)
				changed = true
			}
		}
	}
}

// held joins the values that a call to a function or method weft replaces
// stores or hands back in an interface with the contents of the holder:
// the receiver of a method (m in m.Store(k, v), v, ok := m.Load(k)), the
// context a function of package context returns and the contexts it is
// given (values go from parent to child).
func (f *flow) held(c *ast.CallExpr, fn *types.Func) {
	sig, ok := coreType(f.info.TypeOf(c.Fun)).(*types.Signature)
	if !ok {
		return
	}
	var h any
	if osig := fn.Type().(*types.Signature); osig.Recv() != nil {
		sel, ok := ast.Unparen(c.Fun).(*ast.SelectorExpr)
		if !ok {
			return
		}
		h = f.contentsOf(f.node(sel.X))
	} else if fn.Pkg().Path() == "context" && sig.Results().Len() > 0 && isContextType(sig.Results().At(0).Type()) {
		h = f.contentsOf(f.node(c))
		// ctx, cancel := context.WithCancel(parent): ctx joins the
		// function's node (see tuple).
		f.union(h, f.contentsOf(f.node(c.Fun)))
		for i, a := range c.Args {
			if pt := paramType(sig, i, c.Ellipsis.IsValid()); pt != nil && isContextType(pt) {
				f.union(h, f.contentsOf(f.node(a)))
			}
		}
	}
	if h == nil {
		return
	}
	for i, a := range c.Args {
		if pt := paramType(sig, i, c.Ellipsis.IsValid()); pt != nil && holdsAny(pt) {
			f.flowInto(h, pt, a)
		}
	}
	if holdsAny(sig.Results()) {
		f.union(h, f.node(c))
		f.union(h, f.node(c.Fun)) // v, ok := m.Load(k): see tuple
	}
}

// A containerKey is the node of the values that the API of a package of
// containers holds in interfaces: its parameters, results and fields of
// interface types (sync.Pool's Put and Get and New, list.Element's Value,
// ...), and the contents of the receivers of its methods. The package is
// one store: what goes in anywhere may come out anywhere.
type containerKey string

// contain joins x, an object of a package of containers, to the store of
// its package if its type may hold a channel in an interface.
func (f *flow) contain(x any) {
	v, ok := x.(*types.Var)
	if !ok || v.Pkg() == nil || !containers[v.Pkg().Path()] || !holdsAny(v.Type()) {
		return
	}
	f.union(x, f.add(containerKey(v.Pkg().Path()), nil))
}

// containerRecv joins the contents of the receiver of a call of a method
// of a package of containers (the pool of pool.Put(ch)) to the store of
// its package: the receiver is a variable or field that other packages
// share by name, where the store is not.
func (f *flow) containerRecv(c *ast.CallExpr, fn *types.Func) {
	if fn.Pkg() == nil || !containers[fn.Pkg().Path()] {
		return
	}
	if sig := fn.Type().(*types.Signature); sig.Recv() == nil {
		return
	}
	if sel, ok := ast.Unparen(c.Fun).(*ast.SelectorExpr); ok {
		f.union(f.contentsOf(f.node(sel.X)), f.add(containerKey(fn.Pkg().Path()), nil))
	}
}
