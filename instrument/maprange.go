package instrument

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"
)

// rangeMap rewrites a range loop over a map (its core type: a named map
// type, a type parameter constrained to maps) into a loop over sim's
// iterator, whose order is the schedule's under control (see
// sim.MapRange). From Go 1.23 on, the map becomes a function to range over:
//
//	for k, v := range m { body }
//
// becomes
//
//	for k, v := range weftsim.MapAll(m) { body }
//
// which keeps everything else as it was (the variables, the assignment
// form, break, continue, labels, goto, return, defer), and costs close to
// nothing in plain mode. Before Go 1.23, it becomes a for loop:
//
//	for weftit1 := weftsim.MapRange(m); weftit1.Next(); { k, v := weftit1.Entry(); { body } }
//
// The map is evaluated once, before the loop, as range does. The body is a
// block of its own, inside the one that declares the variables, so that it
// may declare them again (k := k) as it could in the range loop. break,
// continue, labels, goto, return and defer mean what they meant: the loop
// is a for statement, the body is not a function. The assignment form
// (for k, v = range m) assigns the variables in the same place. In a file
// of a Go version before 1.22, the variables are the loop's, declared once
// in its init statement (MapRangeVars returns them), as they were then.
func (r *rewriter) rangeMap(n *ast.RangeStmt) {
	if _, ok := r.typeOf(n.X).(*types.Map); !ok {
		return
	}
	if why := r.skipped(n); why != "" {
		r.skip(n, "range over a map", why)
		return
	}
	r.site(n, nil, "range over a map")
	if v, ok := minorVersion(r.goVer); ok && v >= 23 {
		r.replace(n.X, r.sim("MapAll")+"("+r.text(n.X)+")")
		return
	}
	it := r.temp("it")
	key, val := n.Key, n.Value
	if key != nil && isBlank(key) && (val == nil || isBlank(val)) {
		key, val = nil, nil // for _ = range m, for _, _ = range m: no variables
	}
	get := it + ".Key()"
	lhs := ""
	if key != nil {
		lhs = r.lhsText(n, key)
	}
	if val != nil {
		get = it + ".Entry()"
		lhs += ", " + r.lhsText(n, val)
	}
	init := it + " := " + r.sim("MapRange") + "(" + r.text(n.X) + ")"
	decl := ""
	switch {
	case key == nil:
	case n.Tok == token.ASSIGN:
		decl = lhs + " = " + get + ";"
	case oldLoopVars(r.goVer):
		vars := lhs
		if val == nil {
			vars += ", _"
		}
		init = it + ", " + vars + " := " + r.sim("MapRangeVars") + "(" + r.text(n.X) + ")"
		decl = lhs + " = " + get + ";"
	default:
		decl = lhs + " := " + get + ";"
	}
	head := "for " + init + "; " + it + ".Next(); {"
	if decl != "" {
		head += " " + decl + " {"
	}
	start, end := r.off(n.For), r.off(n.Body.Lbrace)+1
	// The lines of the header, but those of the pieces it refers to, which
	// keep theirs.
	lines := r.lines(start, end)
	for _, e := range []ast.Expr{n.X, key, val} {
		if e != nil && (e == n.X || n.Tok == token.ASSIGN) {
			lines -= r.lines(r.off(e.Pos()), r.off(e.End()))
		}
	}
	head += strings.Repeat("\n", lines)
	r.ed.replace(start, end, head)
	if decl != "" {
		r.ed.insert(r.off(n.Body.Rbrace)+1, "}")
	}
}

// lhsText returns the text of a variable of range loop n: its name where
// the loop declares it, its rewritten text where it assigns it.
func (r *rewriter) lhsText(n *ast.RangeStmt, e ast.Expr) string {
	if id, ok := e.(*ast.Ident); ok && n.Tok == token.DEFINE {
		return id.Name
	}
	return r.text(e)
}

// lines counts the line breaks of the source between two offsets.
func (r *rewriter) lines(start, end int) int {
	return strings.Count(string(r.ed.src[start:end]), "\n")
}
