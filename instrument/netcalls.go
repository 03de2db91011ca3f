package instrument

import (
	"go/ast"
	"go/types"
	"strings"
)

// net.Listen, net.Dial, net.DialTimeout, net.ListenTCP and net.DialTCP
// become simnet's: under control, on a loopback address, a network of the
// execution in memory, whose listeners and connections are simnet's
// *TCPListener and *TCPConn, not net's. Where that would be seen, the
// calls stay net's (the real network, outside weft's control): in a
// package that asserts or switches on *net.TCPConn or *net.TCPListener
// (an in-memory connection would fail the assertion that a real one
// passes), and at a call of net.ListenTCP or net.DialTCP whose result is
// not a variable it declares and uses by its methods alone.

// netMethods are the methods of simnet's types that a variable holding
// net.ListenTCP's or net.DialTCP's result may be used by.
var netMethods = map[string]map[string]bool{
	"ListenTCP": set("Accept", "Addr", "Close", "SetDeadline"),
	"DialTCP": set("Read", "Write", "Close", "CloseRead", "CloseWrite", "LocalAddr", "RemoteAddr",
		"SetDeadline", "SetReadDeadline", "SetWriteDeadline", "SetKeepAlive", "SetKeepAlivePeriod",
		"SetNoDelay", "SetLinger", "SetReadBuffer", "SetWriteBuffer"),
}

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// netScan is what the package does with net's TCP types.
type netScan struct {
	why string                 // why the package keeps the real network
	ok  map[*ast.CallExpr]bool // the calls of ListenTCP and DialTCP that may be simnet's
}

// netWhy returns why the call of net's function fn at n (parent: the
// node above it) must stay net's, or "".
func (pr *pkgRewriter) netWhy(n *ast.SelectorExpr, parent ast.Node, fn string) string {
	if pr.net == nil {
		pr.net = pr.scanNet()
	}
	if pr.net.why != "" {
		return pr.net.why
	}
	if netMethods[fn] == nil {
		return ""
	}
	if call, ok := parent.(*ast.CallExpr); ok && call.Fun == n && pr.net.ok[call] {
		return ""
	}
	return "its result is used as a *net." + map[string]string{"ListenTCP": "TCPListener", "DialTCP": "TCPConn"}[fn] +
		", which weft's in-memory one is not: the real network (outside weft's control)"
}

// scanNet looks at the package's uses of net's TCP types.
func (pr *pkgRewriter) scanNet() *netScan {
	s := &netScan{ok: map[*ast.CallExpr]bool{}}
	vars := map[types.Object]*ast.CallExpr{}
	for _, f := range pr.pkg.Syntax {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.TypeAssertExpr:
				if n.Type != nil && isNetTCPType(pr.info.TypeOf(n.Type)) && s.why == "" {
					s.why = "the package asserts " + types.ExprString(n.Type) + ", which weft's in-memory connections are not: the real network (outside weft's control)"
				}
			case *ast.CaseClause:
				for _, e := range n.List {
					if isNetTCPType(pr.info.TypeOf(e)) && s.why == "" {
						s.why = "the package switches on " + types.ExprString(e) + ", which weft's in-memory connections are not: the real network (outside weft's control)"
					}
				}
			case *ast.AssignStmt:
				if call := pr.netTCPCall(n.Rhs); call != nil {
					if id, ok := n.Lhs[0].(*ast.Ident); ok && id.Name == "_" {
						s.ok[call] = true
					} else if obj := pr.info.Defs[id]; ok && obj != nil {
						vars[obj] = call
					}
				}
			}
			return true
		})
	}
	bad := pr.netUses(vars)
	for obj, call := range vars {
		if !bad[obj] {
			s.ok[call] = true
		}
	}
	return s
}

// netUses returns the variables of vars used other than by the methods
// netMethods allows.
func (pr *pkgRewriter) netUses(vars map[types.Object]*ast.CallExpr) map[types.Object]bool {
	bad := map[types.Object]bool{}
	if len(vars) == 0 {
		return bad
	}
	for _, f := range pr.pkg.Syntax {
		var stack []ast.Node
		ast.Inspect(f, func(n ast.Node) bool {
			if n == nil {
				stack = stack[:len(stack)-1]
				return true
			}
			if id, ok := n.(*ast.Ident); ok {
				if call, ok := vars[pr.info.Uses[id]]; ok && !pr.methodUse(id, stack, call) {
					bad[pr.info.Uses[id]] = true
				}
			}
			stack = append(stack, n)
			return true
		})
	}
	return bad
}

// methodUse reports whether id, under stack, is the receiver of a method
// that netMethods allows for the result of call.
func (pr *pkgRewriter) methodUse(id *ast.Ident, stack []ast.Node, call *ast.CallExpr) bool {
	if len(stack) == 0 {
		return false
	}
	sel, ok := stack[len(stack)-1].(*ast.SelectorExpr)
	if !ok || sel.X != id {
		return false
	}
	s, ok := pr.info.Selections[sel]
	fn := ast.Unparen(call.Fun).(*ast.SelectorExpr).Sel.Name
	return ok && s.Kind() == types.MethodVal && netMethods[fn][sel.Sel.Name]
}

// netTCPCall returns the call of net.ListenTCP or net.DialTCP that rhs is
// alone, if it is one.
func (pr *pkgRewriter) netTCPCall(rhs []ast.Expr) *ast.CallExpr {
	if len(rhs) != 1 {
		return nil
	}
	call, ok := ast.Unparen(rhs[0]).(*ast.CallExpr)
	if !ok {
		return nil
	}
	sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return nil
	}
	fn, ok := pr.info.Uses[sel.Sel].(*types.Func)
	if !ok || fn.Pkg() == nil || fn.Pkg().Path() != "net" || netMethods[fn.Name()] == nil {
		return nil
	}
	return call
}

// isNetTCPType reports whether t is net.TCPConn or net.TCPListener, or a
// pointer to one.
func isNetTCPType(t types.Type) bool {
	n := typeName(t)
	return n == "net.TCPConn" || n == "net.TCPListener"
}

// netConnCall reports whether call hands a net.Conn or a net.Listener to
// the function it calls, as receiver or argument (go conn.Write(b), go
// io.Copy(conn, conn)): under control the value may be one of weft's
// in-memory network, whose operations are events, and the goroutine a go
// statement starts with such a call is one of the execution's, not a
// plain one outside the controller.
func (r *rewriter) netConnCall(call *ast.CallExpr) bool {
	args := call.Args
	if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && r.info.Selections[sel] != nil {
		args = append([]ast.Expr{sel.X}, args...)
	}
	for _, a := range args {
		switch typeName(r.info.TypeOf(a)) {
		case "net.Conn", "net.Listener":
			return true
		}
	}
	return false
}

// dialerOps maps the methods of net.Dialer that dial to simnet's
// functions that take the dialer first.
var dialerOps = map[string]string{"Dial": "DialerDial", "DialContext": "DialerDialContext"}

// dialerOp rewrites a call of (*net.Dialer).Dial or DialContext, d.Dial(n,
// a), to simnet's, weftnet.DialerDial(d, n, a), which dials the
// execution's in-memory listeners as weftnet.Dial does. It reports whether
// n was one.
func (r *rewriter) dialerOp(n *ast.CallExpr) bool {
	sel, ok := ast.Unparen(n.Fun).(*ast.SelectorExpr)
	if !ok || dialerOps[sel.Sel.Name] == "" {
		return false
	}
	s, ok := r.info.Selections[sel]
	if !ok || s.Kind() != types.MethodVal {
		return false
	}
	fn, ok := s.Obj().(*types.Func)
	if !ok || fn.Pkg() == nil || fn.Pkg().Path() != "net" || typeName(fn.Type().(*types.Signature).Recv().Type()) != "net.Dialer" {
		return false
	}
	what := "net.Dialer." + sel.Sel.Name
	if why := r.skipped(n); why != "" {
		r.skip(n, what, why)
		return true
	}
	if why := r.pr.netWhy(sel, n, sel.Sel.Name); why != "" {
		r.skip(n, what, why)
		return true
	}
	x := r.text(sel.X)
	if _, ptr := r.info.TypeOf(sel.X).Underlying().(*types.Pointer); !ptr {
		x = "&" + x
	}
	args := []string{x}
	for _, a := range n.Args {
		args = append(args, r.text(a))
	}
	r.site(n, nil, what)
	r.used[netName] = true
	r.replace(n, netName+"."+dialerOps[sel.Sel.Name]+"("+strings.Join(args, ", ")+")")
	return true
}
