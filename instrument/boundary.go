package instrument

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"
)

// A channel handed to a function of a package weft does not instrument
// must stay a Go channel, or the call would not compile: the variable (or
// field) it is stored in is pinned. Its declaration, the make that creates
// it, the timer or ticker it comes from and every operation on it are left
// alone, and reported.

// pin collects the pinned variables of the file before the rewrite.
func (r *rewriter) pin() {
	r.pinned = map[types.Object]string{}
	r.keep = map[ast.Node]string{}
	ast.Inspect(r.file, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		fn := r.callee(call)
		if fn == nil || r.instrumented(fn.Pkg()) || replacements[fn.Pkg().Path()][fn.Name()] != [2]string{} {
			return true
		}
		for _, arg := range call.Args {
			if !r.carriesChan(arg) && !r.carriesSync(arg) {
				continue
			}
			if c, ok := ast.Unparen(arg).(*ast.CallExpr); ok {
				// time.After(d) handed on: it stays the time package's.
				if f := r.callee(c); f != nil && weftFuncs[f.Pkg().Path()+"."+f.Name()] {
					r.keepNode(c, fmt.Sprintf("it is handed to %s.%s, which weft does not instrument", fn.Pkg().Name(), fn.Name()))
				}
				continue
			}
			if obj := r.root(arg); obj != nil && r.instrumented(obj.Pkg()) && r.pinned[obj] == "" {
				r.pinned[obj] = fmt.Sprintf("it is handed to %s.%s, which weft does not instrument", fn.Pkg().Name(), fn.Name())
			}
		}
		return true
	})
	// A variable declared with a channel type and given a channel that
	// comes from uninstrumented code keeps the Go channel type.
	ast.Inspect(r.file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ValueSpec:
			for i, id := range n.Names {
				if n.Type != nil && i < len(n.Values) && r.carriesChan(n.Values[i]) {
					if why := r.rawChan(n.Values[i]); why != "" {
						r.pinned[r.info.Defs[id]] = why
					}
				}
			}
		case *ast.AssignStmt:
			if n.Tok == token.ASSIGN && len(n.Lhs) == len(n.Rhs) {
				for i, l := range n.Lhs {
					if obj := r.root(l); obj != nil && r.instrumented(obj.Pkg()) && r.carriesChan(n.Rhs[i]) {
						if why := r.rawChan(n.Rhs[i]); why != "" {
							r.pinned[obj] = why
						}
					}
				}
			}
		}
		return true
	})
	if len(r.pinned) == 0 {
		return
	}
	// Note the declarations and the initializers of the pinned variables.
	ast.Inspect(r.file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ValueSpec:
			for i, id := range n.Names {
				if why, ok := r.pinned[r.info.Defs[id]]; ok {
					if n.Type != nil {
						r.keepNode(n.Type, why)
					}
					if i < len(n.Values) {
						r.keepNode(n.Values[i], why)
					}
				}
			}
		case *ast.AssignStmt:
			if len(n.Lhs) != len(n.Rhs) {
				break
			}
			for i, l := range n.Lhs {
				if why, ok := r.pinned[r.root(l)]; ok {
					r.keepNode(n.Rhs[i], why)
				}
			}
		case *ast.Field:
			for _, id := range n.Names {
				if why, ok := r.pinned[r.info.Defs[id]]; ok {
					r.keepNode(n.Type, why)
				}
			}
		case *ast.KeyValueExpr: // a field of a composite literal
			if id, ok := n.Key.(*ast.Ident); ok {
				if why, ok := r.pinned[r.info.Uses[id]]; ok {
					r.keepNode(n.Value, why)
				}
			}
		}
		return true
	})
}

// keepNode leaves node n as it is.
func (r *rewriter) keepNode(n ast.Node, why string) {
	if r.keep == nil {
		r.keep = map[ast.Node]string{}
	}
	r.keep[n] = why
}

// carriesChan reports whether a value is a channel, or a timer or ticker
// whose channel would be handed on. (Contexts are converted instead: see
// contextBoundary.)
func (r *rewriter) carriesChan(e ast.Expr) bool {
	if _, ok := r.typeOf(e).(*types.Chan); ok {
		return true
	}
	name := typeName(r.info.TypeOf(e))
	return name == "time.Timer" || name == "time.Ticker"
}

// carriesSync reports whether a value is (a pointer to) one of sync's types
// that weft replaces: handed to code that expects sync's, it must stay so.
func (r *rewriter) carriesSync(e ast.Expr) bool {
	name := typeName(r.info.TypeOf(e))
	pkg, typ, _ := strings.Cut(name, ".")
	return pkg == "sync" && replacements["sync"][typ] != [2]string{} && typ != "NewCond"
}

// root returns the variable or field an expression reads: x for x, &x, x.C
// and (x).f.
func (r *rewriter) root(e ast.Expr) types.Object {
	switch e := ast.Unparen(e).(type) {
	case *ast.UnaryExpr:
		if e.Op == token.AND {
			return r.root(e.X)
		}
	case *ast.Ident:
		return r.objectOf(e)
	case *ast.SelectorExpr:
		if sel := r.info.Selections[e]; sel != nil && sel.Kind() == types.FieldVal {
			if weftTypes[typeName(sel.Recv())] {
				return r.root(e.X) // timer.C: the timer is what stays as it was
			}
			return sel.Obj()
		}
		return r.info.Uses[e.Sel]
	}
	return nil
}

// kept reports whether node n is inside a part of the file left alone for
// a pinned variable, and reports the site the first time.
func (r *rewriter) kept(n ast.Node) bool {
	if len(r.keep) == 0 {
		return false
	}
	for m := n; m != nil; m = r.parentOf(m) {
		if why, ok := r.keep[m]; ok {
			if !r.reported[m] {
				r.reported[m] = true
				r.skips = append(r.skips, Skip{Pos: r.fset.Position(m.Pos()), What: "channel", Why: why})
			}
			return true
		}
		switch m.(type) {
		case ast.Stmt, ast.Decl:
			return false
		}
	}
	return false
}

// pinnedWhy returns why the channel e reads stays a Go channel, if pinned.
func (r *rewriter) pinnedWhy(e ast.Expr) string {
	if obj := r.root(e); obj != nil {
		return r.pinned[obj]
	}
	return ""
}
