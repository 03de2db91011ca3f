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
	// fields are the types of the struct fields that become simnet's
	// (*net.TCPListener: *weftnet.TCPListener), and the type of simnet
	// each becomes (TCPListener, TCPConn).
	fields map[*ast.StarExpr]string
}

// netScanner is netScan as scanNet makes it.
type netScanner struct {
	*netScan
	vars map[types.Object]ast.Expr // variables := declares with the result of a call or an assertion
	// fields are the package's struct fields of type *net.TCPConn or
	// *net.TCPListener, with their type's expression; values the
	// assertions stored in them.
	fields map[types.Object]*ast.StarExpr
	values map[types.Object][]*ast.TypeAssertExpr
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
// tc.SetNoDelay(true); c.(*net.TCPConn).CloseWrite(); or a struct field
// of the package that holds it, used so: hashicorp/raft's
// TCPStreamLayer) becomes simnet's, which an in-memory connection
// passes; any other keeps the package on the real network, as a type
// switch on them does.
func (pr *pkgRewriter) scanNet() *netScan {
	s := &netScanner{netScan: &netScan{ok: map[*ast.CallExpr]bool{}, asserts: map[*ast.TypeAssertExpr]string{},
		fields: map[*ast.StarExpr]string{}}, vars: map[types.Object]ast.Expr{},
		fields: map[types.Object]*ast.StarExpr{}, values: map[types.Object][]*ast.TypeAssertExpr{}}
	for _, f := range pr.pkg.Syntax {
		var stack []ast.Node
		ast.Inspect(f, func(n ast.Node) bool {
			if n == nil {
				stack = stack[:len(stack)-1]
				return true
			}
			pr.scanNetNode(n, stack, s)
			stack = append(stack, n)
			return true
		})
	}
	bad := pr.netUses(s.vars)
	for obj, e := range s.vars {
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
	pr.netFields(s)
	return s.netScan
}

// scanNetNode is scanNet at node n, under stack.
func (pr *pkgRewriter) scanNetNode(n ast.Node, stack []ast.Node, s *netScanner) {
	switch n := n.(type) {
	case *ast.TypeAssertExpr:
		if n.Type != nil && isNetTCPType(pr.info.TypeOf(n.Type)) && !pr.netAssertOK(n, stack, s) && s.why == "" {
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
				s.vars[obj] = call
			}
		}
	case *ast.StructType:
		for _, f := range n.Fields.List {
			star, ok := f.Type.(*ast.StarExpr)
			if kind, _ := netAssertKind(pr.info.TypeOf(f.Type)); !ok || kind == "" {
				continue
			}
			for _, id := range f.Names {
				if obj := pr.info.Defs[id]; obj != nil && !obj.Exported() { // other packages' uses unseen
					s.fields[obj] = star
				}
			}
		}
	}
}

// netAssertOK reports whether the type assertion n to *net.TCPConn or
// *net.TCPListener (stack: the nodes above it) may become simnet's, and
// records it: the receiver of a call of a method netMethods allows, the
// value of a variable that := declares (vars, whose uses netUses checks),
// with or without its ok, or the value of a struct field (in a composite
// literal, or assigned: values, which netFields checks).
func (pr *pkgRewriter) netAssertOK(n *ast.TypeAssertExpr, stack []ast.Node, s *netScanner) bool {
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
	case *ast.KeyValueExpr:
		key, _ := p.Key.(*ast.Ident)
		if key == nil || p.Value != n || pr.info.Uses[key] == nil {
			return false
		}
		s.values[pr.info.Uses[key]] = append(s.values[pr.info.Uses[key]], n)
		s.asserts[n] = "Must" + name
	case *ast.AssignStmt:
		return pr.netAssignOK(n, p, name, s)
	default:
		return false
	}
	return true
}

// netAssignOK is netAssertOK for the assertion n assigned by a: to a
// variable := declares, or to a struct field.
func (pr *pkgRewriter) netAssignOK(n *ast.TypeAssertExpr, a *ast.AssignStmt, name string, s *netScanner) bool {
	if len(a.Rhs) != 1 || a.Rhs[0] != n {
		return false
	}
	if sel, ok := a.Lhs[0].(*ast.SelectorExpr); ok && a.Tok == token.ASSIGN && len(a.Lhs) == 1 {
		if fs, ok := pr.info.Selections[sel]; ok && fs.Kind() == types.FieldVal {
			s.values[fs.Obj()] = append(s.values[fs.Obj()], n)
			s.asserts[n] = "Must" + name
			return true
		}
		return false
	}
	id, _ := a.Lhs[0].(*ast.Ident)
	if a.Tok != token.DEFINE || id == nil {
		return false
	}
	if id.Name != "_" {
		obj := pr.info.Defs[id]
		if obj == nil {
			return false // an existing variable: its type is net's
		}
		s.vars[obj] = n
	}
	s.asserts[n] = map[bool]string{true: "Assert", false: "Must"}[len(a.Lhs) == 2] + name
	return true
}

// netFields decides which struct fields of s become simnet's: those of
// the package used by the methods netMethods allows alone, and set only
// to assertions (netAssertOK's values). The assertions stored in any
// other keep the package on the real network.
func (pr *pkgRewriter) netFields(s *netScanner) {
	bad := map[types.Object]bool{}
	for obj := range s.values {
		if s.fields[obj] == nil {
			bad[obj] = true // a field of another package's, or of another type
		}
	}
	if len(s.fields) > 0 {
		for _, f := range pr.pkg.Syntax {
			pr.fieldUses(f, s, bad)
		}
	}
	badType := map[*ast.StarExpr]bool{}
	for obj, star := range s.fields {
		if bad[obj] {
			badType[star] = true
		}
	}
	for obj, star := range s.fields {
		if badType[star] {
			bad[obj] = true
		}
	}
	for obj, star := range s.fields {
		if !bad[obj] {
			_, s.netScan.fields[star] = netAssertKind(pr.info.TypeOf(star))
		}
	}
	for obj, vals := range s.values {
		if bad[obj] && s.why == "" {
			s.why = "the package stores " + types.ExprString(vals[0].Type) + " in " + obj.Name() + " and uses it other than by its methods, which weft's in-memory connections do not pass: the real network (outside weft's control)"
		}
	}
}

// fieldUses marks bad the fields of s that f uses other than as the
// receiver of a method netMethods allows, or to store an assertion of
// s.values.
func (pr *pkgRewriter) fieldUses(f *ast.File, s *netScanner, bad map[types.Object]bool) {
	stored := map[ast.Expr]bool{}
	for _, vals := range s.values {
		for _, v := range vals {
			stored[v] = true
		}
	}
	var stack []ast.Node
	ast.Inspect(f, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		id, ok := n.(*ast.Ident)
		if obj := pr.info.Uses[id]; ok && s.fields[obj] != nil && !pr.fieldUseOK(id, stack, obj, stored) {
			bad[obj] = true
		}
		stack = append(stack, n)
		return true
	})
}

// fieldUseOK reports whether id, a use of field obj under stack, is the
// receiver of a method netMethods allows (x.f.Accept()), or stores an
// assertion (f: c.(*net.TCPListener), x.f = c.(*net.TCPListener)).
func (pr *pkgRewriter) fieldUseOK(id *ast.Ident, stack []ast.Node, obj types.Object, stored map[ast.Expr]bool) bool {
	if len(stack) < 2 {
		return false
	}
	switch p := stack[len(stack)-1].(type) {
	case *ast.KeyValueExpr:
		return p.Key == id && stored[p.Value]
	case *ast.SelectorExpr:
		if p.Sel != id {
			return false
		}
		switch q := stack[len(stack)-2].(type) {
		case *ast.BinaryExpr:
			return pr.nilCompare(q, p)
		case *ast.AssignStmt:
			return len(q.Lhs) == 1 && q.Lhs[0] == p && stored[q.Rhs[0]]
		case *ast.SelectorExpr:
			kind, _ := netAssertKind(obj.Type())
			m, ok := pr.info.Selections[q]
			return q.X == p && ok && m.Kind() == types.MethodVal && netMethods[kind][q.Sel.Name]
		}
	}
	return false
}

// nilCompare reports whether b compares e with nil (e != nil), which
// simnet's types answer as net's do.
func (pr *pkgRewriter) nilCompare(b *ast.BinaryExpr, e ast.Expr) bool {
	if b.Op != token.EQL && b.Op != token.NEQ {
		return false
	}
	other := b.Y
	if b.Y == e {
		other = b.X
	}
	return (b.X == e || b.Y == e) && pr.info.Types[other].IsNil()
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
		var stack []ast.Node
		ast.Inspect(f, func(n ast.Node) bool {
			if n == nil {
				stack = stack[:len(stack)-1]
				return true
			}
			if id, ok := n.(*ast.Ident); ok {
				if e, ok := vars[pr.info.Uses[id]]; ok && !pr.methodUse(id, stack, e) {
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
// that netMethods allows for the result of e, a call or an assertion.
func (pr *pkgRewriter) methodUse(id *ast.Ident, stack []ast.Node, e ast.Expr) bool {
	if len(stack) == 0 {
		return false
	}
	if b, ok := stack[len(stack)-1].(*ast.BinaryExpr); ok {
		return pr.nilCompare(b, id)
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

// netField rewrites the type of a struct field that scanNet found used
// by methods alone, *net.TCPListener, to simnet's, *weftnet.TCPListener.
func (r *rewriter) netField(n *ast.StarExpr) {
	if r.pr.net == nil {
		if kind, _ := netAssertKind(r.info.TypeOf(n)); kind == "" {
			return
		}
		r.pr.net = r.pr.scanNet()
	}
	name := r.pr.net.fields[n]
	if name == "" || r.pr.net.why != "" {
		return
	}
	what := "field of type " + types.ExprString(n)
	if why := r.skipped(n); why != "" {
		r.skip(n, what, why)
		return
	}
	r.site(n, nil, what)
	r.used[netName] = true
	r.replace(n, "*"+netName+"."+name)
}
