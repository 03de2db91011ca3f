package instrument

import (
	"go/ast"
	"go/types"
)

// arrayLen keeps the length of an array type computed from the sizes of
// types (unsafe.Sizeof, Alignof, Offsetof) as Go's types give it: weft's
// twins of sync's and atomic's types are larger, and a cache line's
// padding, [64 - unsafe.Sizeof(bucket{})]byte, would go negative, which
// does not compile (puzpuzpuz/xsync's Map). The array keeps the length
// go test gives it; code that reads sizes at run time (unsafe.Add(p,
// i*unsafe.Sizeof(b))) is left as it is and sees the rewritten types'.
func (r *rewriter) arrayLen(n *ast.ArrayType) {
	if n.Len == nil || !r.readsSizes(n.Len) {
		return
	}
	tv, ok := r.info.Types[n.Len]
	if !ok || tv.Value == nil {
		return
	}
	if r.fset.Position(n.Len.Pos()).Line != r.fset.Position(n.Len.End()).Line {
		return // a number at the end of a line would end the statement
	}
	ast.Inspect(n.Len, func(m ast.Node) bool {
		if id, ok := m.(*ast.Ident); ok {
			if _, ok := r.info.Uses[id].(*types.PkgName); ok {
				r.gone[id] = true // unsafe., and any package the length names
			}
		}
		return true
	})
	r.replace(n.Len, tv.Value.ExactString())
}

// readsSizes reports whether e calls unsafe.Sizeof, Alignof or Offsetof.
func (r *rewriter) readsSizes(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok || found {
			return !found
		}
		sel, ok := ast.Unparen(c.Fun).(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if b, ok := r.info.Uses[sel.Sel].(*types.Builtin); ok {
			switch b.Name() {
			case "Sizeof", "Alignof", "Offsetof":
				found = true
			}
		}
		return !found
	})
	return found
}
