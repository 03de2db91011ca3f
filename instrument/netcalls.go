package instrument

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"
)

// net.Listen, net.Dial, net.DialTimeout, net.ListenTCP and net.DialTCP
// become simnet's: under control, on a loopback address or a unix
// socket's path, a network of the execution in memory, whose listeners
// and connections are simnet's *TCPListener and *TCPConn (*UnixListener
// and *UnixConn), not net's. Where that would be seen, the calls stay
// net's (the real network, outside weft's control): in a package that
// switches on *net.TCPConn or *net.TCPListener, or asserts one other than
// to use its methods (an in-memory connection would fail the assertion
// that a real one passes; one used by its methods alone becomes
// simnet's), or asserts or switches on *net.UnixConn or
// *net.UnixListener; and at a call of net.ListenTCP or net.DialTCP whose
// result is not a variable it declares and uses by its methods alone.

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
	// asserts are the type assertions to *net.TCPConn and
	// *net.TCPListener that become simnet's, and the function of simnet
	// each becomes (AssertTCPConn, MustTCPListener, ...).
	asserts map[*ast.TypeAssertExpr]string
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

// scanNet looks at the package's uses of net's TCP types. A type
// assertion to *net.TCPConn or *net.TCPListener whose result is used by
// the methods of simnet's twin alone (tc, ok := c.(*net.TCPConn), then
// tc.SetNoDelay(true); or c.(*net.TCPConn).CloseWrite()) becomes
// simnet's, which an in-memory connection passes; any other keeps the
// package on the real network, as a type switch on them does.
func (pr *pkgRewriter) scanNet() *netScan {
	s := &netScan{ok: map[*ast.CallExpr]bool{}, asserts: map[*ast.TypeAssertExpr]string{}}
	vars := map[types.Object]ast.Expr{} // the calls and assertions whose results variables hold
	for _, f := range pr.pkg.Syntax {
		ast.PreorderStack(f, nil, func(n ast.Node, stack []ast.Node) bool {
			switch n := n.(type) {
			case *ast.TypeAssertExpr:
				if n.Type != nil && isNetTCPType(pr.info.TypeOf(n.Type)) && !pr.netAssertOK(n, stack, vars, s) && s.why == "" {
					s.why = "the package asserts " + types.ExprString(n.Type) + ", which weft's in-memory connections do not pass: the real network (outside weft's control)"
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
	for obj, e := range vars {
		switch e := e.(type) {
		case *ast.CallExpr:
			if !bad[obj] {
				s.ok[e] = true
			}
		case *ast.TypeAssertExpr:
			if bad[obj] && s.why == "" {
				s.why = "the package asserts " + types.ExprString(e.Type) + " and uses " + obj.Name() + " other than by its methods, which weft's in-memory connections do not pass: the real network (outside weft's control)"
			}
		}
	}
	return s
}

// netAssertOK reports whether the type assertion n to *net.TCPConn or
// *net.TCPListener (stack: the nodes above it) may become simnet's, and
// records it: the receiver of a call of a method netMethods allows, or
// the value of a variable that := declares (vars, whose uses netUses
// checks), with or without its ok.
func (pr *pkgRewriter) netAssertOK(n *ast.TypeAssertExpr, stack []ast.Node, vars map[types.Object]ast.Expr, s *netScan) bool {
	kind, name := netAssertKind(pr.info.TypeOf(n.Type))
	if kind == "" || len(stack) == 0 {
		return false
	}
	switch p := stack[len(stack)-1].(type) {
	case *ast.SelectorExpr:
		sel, ok := pr.info.Selections[p]
		if len(stack) < 2 || p.X != n || !ok || sel.Kind() != types.MethodVal || !netMethods[kind][p.Sel.Name] {
			return false
		}
		if call, ok := stack[len(stack)-2].(*ast.CallExpr); !ok || call.Fun != p {
			return false
		}
		s.asserts[n] = "Must" + name
	case *ast.AssignStmt:
		if p.Tok != token.DEFINE || len(p.Rhs) != 1 || p.Rhs[0] != n {
			return false
		}
		id, _ := p.Lhs[0].(*ast.Ident)
		if id == nil {
			return false
		}
		if id.Name != "_" {
			obj := pr.info.Defs[id]
			if obj == nil {
				return false // an existing variable: its type is net's
			}
			vars[obj] = n
		}
		s.asserts[n] = map[bool]string{true: "Assert", false: "Must"}[len(p.Lhs) == 2] + name
	default:
		return false
	}
	return true
}

// netAssertKind returns, for *net.TCPConn or *net.TCPListener, the
// function of net whose result has its methods in netMethods, and the
// type's name.
func netAssertKind(t types.Type) (kind, name string) {
	if _, ptr := t.(*types.Pointer); !ptr {
		return "", ""
	}
	switch typeName(t) {
	case "net.TCPConn":
		return "DialTCP", "TCPConn"
	case "net.TCPListener":
		return "ListenTCP", "TCPListener"
	}
	return "", ""
}

// netUses returns the variables of vars used other than by the methods
// netMethods allows.
func (pr *pkgRewriter) netUses(vars map[types.Object]ast.Expr) map[types.Object]bool {
	bad := map[types.Object]bool{}
	if len(vars) == 0 {
		return bad
	}
	for _, f := range pr.pkg.Syntax {
		ast.PreorderStack(f, nil, func(n ast.Node, stack []ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				if e, ok := vars[pr.info.Uses[id]]; ok && !pr.methodUse(id, stack, e) {
					bad[pr.info.Uses[id]] = true
				}
			}
			return true
		})
	}
	return bad
}

// methodUse reports whether id, under stack, is the receiver of a method
// that netMethods allows for the result of e, a call or an assertion.
func (pr *pkgRewriter) methodUse(id *ast.Ident, stack []ast.Node, e ast.Expr) bool {
	if len(stack) == 0 {
		return false
	}
	sel, ok := stack[len(stack)-1].(*ast.SelectorExpr)
	if !ok || sel.X != id {
		return false
	}
	var kind string
	switch e := e.(type) {
	case *ast.CallExpr:
		kind = ast.Unparen(e.Fun).(*ast.SelectorExpr).Sel.Name
	case *ast.TypeAssertExpr:
		kind, _ = netAssertKind(pr.info.TypeOf(e.Type))
	}
	s, ok := pr.info.Selections[sel]
	return ok && s.Kind() == types.MethodVal && netMethods[kind][sel.Sel.Name]
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

// isNetTCPType reports whether t is net.TCPConn, net.TCPListener,
// net.UnixConn or net.UnixListener, or a pointer to one: types that
// weft's in-memory connections and listeners are not.
func isNetTCPType(t types.Type) bool {
	switch typeName(t) {
	case "net.TCPConn", "net.TCPListener", "net.UnixConn", "net.UnixListener":
		return true
	}
	return false
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

// netAssert rewrites a type assertion to *net.TCPConn or *net.TCPListener
// that scanNet found used by methods alone, c.(*net.TCPConn), to
// simnet's, weftnet.AssertTCPConn(c), which an in-memory connection
// passes.
func (r *rewriter) netAssert(n *ast.TypeAssertExpr) {
	if n.Type == nil || !isNetTCPType(r.info.TypeOf(n.Type)) {
		return
	}
	if r.pr.net == nil {
		r.pr.net = r.pr.scanNet()
	}
	fn := r.pr.net.asserts[n]
	if fn == "" || r.pr.net.why != "" {
		return
	}
	what := "type assertion to " + types.ExprString(n.Type)
	if why := r.skipped(n); why != "" {
		r.skip(n, what, why)
		return
	}
	r.site(n, nil, what)
	r.used[netName] = true
	r.replace(n, netName+"."+fn+"("+r.text(n.X)+")")
}
