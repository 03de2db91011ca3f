package instrument

import (
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"strings"
)

// selector rewrites a qualified identifier of the standard library that has
// a weft twin: sync.Mutex, time.Sleep, context.WithCancel, ... A type kept
// by the flow analysis (a mutex handed to code that expects sync's) stays,
// and so does a function whose result does (time.NewTimer for a timer
// handed on).
func (r *rewriter) selector(n *ast.SelectorExpr, parent ast.Node) {
	x, ok := n.X.(*ast.Ident)
	if !ok {
		return
	}
	pn, ok := r.info.Uses[x].(*types.PkgName)
	if !ok {
		return
	}
	to, ok := replacements[pn.Imported().Path()][n.Sel.Name]
	if !ok {
		to, ok = stdTwins[pn.Imported().Path()][n.Sel.Name]
	}
	if !ok || r.stdTypes[n] {
		return
	}
	if why := r.skipped(n); why != "" {
		r.skip(n, pn.Imported().Name()+"."+n.Sel.Name, why)
		return
	}
	if pn.Imported().Path() == "net" {
		if why := r.pr.netWhy(n, parent, n.Sel.Name); why != "" {
			r.skip(n, "net."+n.Sel.Name, why)
			return
		}
	}
	var class any
	switch obj := r.info.Uses[n.Sel].(type) {
	case *types.TypeName:
		if obj.Pkg().Path() != "context" {
			class = r.pr.flow.owner[n]
		}
	case *types.Func:
		if call, ok := parent.(*ast.CallExpr); ok && call.Fun == n && carries(obj.Type().(*types.Signature).Results(), map[types.Type]bool{}) {
			class = r.pr.flow.node(call)
		}
	}
	if why := r.pr.flow.rawWhy(class); why != "" {
		r.skip(n, pn.Imported().Name()+"."+n.Sel.Name, why)
		return
	}
	r.site(n, class, pn.Imported().Name()+"."+n.Sel.Name)
	r.used[to[0]] = true
	r.gone[x] = true
	r.replace(n, to[0]+"."+to[1])
}

// chanType rewrites a channel type, of any direction, to *sim.Chan.
func (r *rewriter) chanType(n *ast.ChanType) {
	owner := r.pr.flow.owner[n]
	if why := r.pr.flow.rawWhy(owner); why != "" {
		r.skip(n, "channel type", why)
		return
	}
	r.site(n, owner, "channel type")
	r.replace(n, "*"+r.sim("Chan")+"["+r.text(n.Value)+"]")
}

// chanOp returns the operand text of a channel operation on e, if the
// channel is one of weft's after the rewrite; otherwise it reports the
// site at left alone, as what.
func (r *rewriter) chanOp(e ast.Expr, at ast.Node, what string) (string, bool) {
	x := r.pr.flow.node(e)
	if why := r.pr.flow.rawWhy(x); why != "" {
		if what != "" {
			r.skip(at, what, why)
		}
		return "", false
	}
	if why := r.skipped(at); why != "" {
		r.skip(at, what, why)
		return "", false
	}
	r.site(at, x, what)
	return r.operand(e), true
}

// waitOp is chanOp for the operations that wait (receive, send, range).
// On a channel left Go's it returns the channel's text with goChan set,
// for sim's operations on Go channels (RecvGo, RecvOKGo, SendGo): they
// poll under control, so a controlled goroutine waiting on a Go channel
// lets the goroutine that will send on it run. Only a decision of the
// safety net leaves such a site as it is.
func (r *rewriter) waitOp(e ast.Expr, at ast.Node, what string) (op string, goChan, ok bool) {
	if why := r.skipped(at); why != "" {
		r.skip(at, what, why)
		return "", false, false
	}
	x := r.pr.flow.node(e)
	if r.pr.flow.rawWhy(x) != "" {
		r.site(at, nil, what) // no class: the safety net leaves the site alone
		return r.text(e), true, true
	}
	r.site(at, x, what)
	return r.operand(e), false, true
}

// operand returns the text of a weft channel value: for a named channel
// type rewritten to a struct, its channel.
func (r *rewriter) operand(e ast.Expr) string {
	if _, ok := r.pr.wrapped(r.info.TypeOf(e)); ok {
		return "(" + r.text(e) + ")." + chanField
	}
	return r.text(e)
}

// call rewrites the builtins that operate on channels (make, close, len,
// cap), and converts values at the boundary with uninstrumented code.
func (r *rewriter) call(n *ast.CallExpr) {
	r.contextBoundary(n)
	r.contextDone(n)
	r.testingBoundary(n)
	if r.reflectChanOp(n) || r.dialerOp(n) {
		return
	}
	if tv, ok := r.info.Types[n.Fun]; ok && tv.IsType() {
		r.namedConversion(n, tv.Type)
		return
	}
	id, ok := ast.Unparen(n.Fun).(*ast.Ident)
	if !ok {
		return
	}
	if _, ok := r.info.Uses[id].(*types.Builtin); !ok || len(n.Args) == 0 {
		return
	}
	switch id.Name {
	case "make":
		r.makeChan(n)
	case "close", "len", "cap":
		if _, ok := r.typeOf(n.Args[0]).(*types.Chan); !ok {
			return
		}
		if id.Name == "close" {
			r.closeChan(n)
			return
		}
		op, ok := r.chanOp(n.Args[0], n, id.Name)
		if !ok {
			return
		}
		method := map[string]string{"close": "Close", "len": "Len", "cap": "Cap"}[id.Name]
		r.replace(n, "("+op+")."+method+"()")
	}
}

// reflectChanOps maps the methods of reflect.Value that operate on a
// channel to sim's functions that do so under control.
var reflectChanOps = map[string]string{
	"Recv": "ReflectRecv", "Send": "ReflectSend", "TryRecv": "ReflectTryRecv",
	"TrySend": "ReflectTrySend", "Close": "ReflectClose",
}

// reflectChanOp rewrites a call of a channel method of reflect.Value,
// v.Recv(), to sim's, sim.ReflectRecv(v): the channels reflect sees are
// Go's, and v.Recv or v.Send would block outside weft's control
// (eapache/channels' Wrap and Unwrap). It reports whether n was one.
func (r *rewriter) reflectChanOp(n *ast.CallExpr) bool {
	sel, ok := ast.Unparen(n.Fun).(*ast.SelectorExpr)
	if !ok {
		return false
	}
	s, ok := r.info.Selections[sel]
	if !ok || s.Kind() != types.MethodVal || reflectChanOps[sel.Sel.Name] == "" {
		return false
	}
	fn, ok := s.Obj().(*types.Func)
	if !ok || fn.Pkg() == nil || fn.Pkg().Path() != "reflect" {
		return false
	}
	recv := fn.Type().(*types.Signature).Recv()
	if named, ok := recv.Type().(*types.Named); !ok || named.Obj().Name() != "Value" {
		return false
	}
	what := "reflect.Value." + sel.Sel.Name
	if why := r.skipped(n); why != "" {
		r.skip(n, what, why)
		return true
	}
	x := r.text(sel.X)
	if _, ptr := r.info.TypeOf(sel.X).Underlying().(*types.Pointer); ptr {
		x = "*" + x
	}
	args := []string{x}
	for _, a := range n.Args {
		args = append(args, r.text(a))
	}
	r.site(n, nil, what)
	r.replace(n, r.sim(reflectChanOps[sel.Sel.Name])+"("+strings.Join(args, ", ")+")")
	return true
}

// closeChan rewrites close(ch) to ch.Close(), or, on a channel left Go's,
// to sim.CloseGo(ch): the close is an event, and the goroutines of the
// execution that poll the channel look again at once, as Go's receivers
// would wake (ants' test closes a Go channel its pool's workers wait on,
// then gives them three seconds to end).
func (r *rewriter) closeChan(n *ast.CallExpr) {
	op, goChan, ok := r.waitOp(n.Args[0], n, "close")
	switch {
	case !ok:
	case goChan:
		r.replace(n, r.sim("CloseGo")+"("+op+")")
	default:
		r.replace(n, "("+op+").Close()")
	}
}

// makeChan rewrites make(chan T, n) to sim.NewChan[T](n); the capacity, of
// any integer type, is converted to int.
func (r *rewriter) makeChan(n *ast.CallExpr) {
	t := r.info.TypeOf(n)
	ch, ok := coreType(t).(*types.Chan)
	if !ok {
		return
	}
	class := r.pr.flow.node(n)
	if why := r.pr.flow.rawWhy(class); why != "" {
		r.skip(n, "make", why)
		return
	}
	if why := r.skipped(n); why != "" {
		r.skip(n, "make", why)
		return
	}
	size := "0"
	if len(n.Args) > 1 {
		size = r.text(n.Args[1])
		if st := r.info.TypeOf(n.Args[1]); st != nil && !types.Identical(st, types.Typ[types.Int]) {
			if b, ok := st.(*types.Basic); !ok || b.Info()&types.IsUntyped == 0 {
				size = "int(" + size + ")"
			}
		}
	}
	var elem string
	if ct, ok := ast.Unparen(n.Args[0]).(*ast.ChanType); ok {
		elem = r.text(ct.Value)
	} else {
		s, ok := r.typeText(ch.Elem())
		if !ok {
			r.skip(n, "make", "the channel's element type cannot be spelled here")
			return
		}
		elem = s
	}
	r.site(n, class, "make")
	text := r.sim("NewChan") + "[" + elem + "](" + size + ")"
	if _, ok := r.pr.wrapped(t); ok {
		text = "(" + r.text(n.Args[0]) + "{" + chanField + ": " + text + "})"
	}
	r.replace(n, text)
}

// receive rewrites <-ch to ch.Recv().
func (r *rewriter) receive(n *ast.UnaryExpr, parent ast.Node) {
	if r.isComm(parent) {
		return // a select's case: the select rewrites it
	}
	op, goChan, ok := r.waitOp(n.X, n, "receive")
	switch {
	case !ok:
	case goChan:
		r.replace(n, r.sim("RecvGo")+"("+op+")")
	default:
		r.replace(n, "("+op+").Recv()")
	}
}

// send rewrites ch <- v to ch.Send(v).
func (r *rewriter) send(n *ast.SendStmt) {
	if r.isComm(n) {
		return
	}
	op, goChan, ok := r.waitOp(n.Chan, n, "send")
	switch {
	case !ok:
	case goChan:
		v, ok := r.sendText(n.Chan, n.Value, true, r.text(n.Value))
		if !ok {
			r.skip(n, "send", "the channel's element type cannot be spelled here")
			return
		}
		r.replace(n, r.sim("SendGo")+"("+op+", "+v+")")
	default:
		r.replace(n, "("+op+").Send("+r.text(n.Value)+")")
	}
}

// sendText returns text, the value v sent on ch, converted to the
// channel's element type when v has a type of its own that is not that
// type (an int sent on a chan any): sim's SendGo, OnSend and OnSendGo infer
// their T from both the channel and the value, where Go's send assigns the
// value to the element type. ok is false when the element type cannot be
// spelled here; raw spells it as a Go channel's.
func (r *rewriter) sendText(ch, v ast.Expr, raw bool, text string) (string, bool) {
	chT, isChan := r.typeOf(ch).(*types.Chan)
	vt := r.info.TypeOf(v)
	if !isChan || vt == nil || types.Identical(vt, chT.Elem()) {
		return text, true
	}
	if b, ok := vt.(*types.Basic); ok && b.Info()&types.IsUntyped != 0 {
		return text, true // typed by the channel, inferred first
	}
	elem, ok := r.elemText(chT.Elem(), raw)
	if !ok {
		return "", false
	}
	return "(" + elem + ")(" + text + ")", true
}

// commaOK rewrites v, ok := <-ch (or =, or var) to v, ok := ch.RecvOK().
func (r *rewriter) commaOK(n ast.Node, lhs, rhs []ast.Expr) {
	if len(lhs) != 2 || len(rhs) != 1 {
		return
	}
	u, ok := ast.Unparen(rhs[0]).(*ast.UnaryExpr)
	if !ok || u.Op != token.ARROW || r.isComm(n) {
		return
	}
	op, goChan, ok := r.waitOp(u.X, u, "receive")
	switch {
	case !ok:
	case goChan:
		r.replace(rhs[0], r.sim("RecvOKGo")+"("+op+")")
	default:
		r.replace(rhs[0], "("+op+").RecvOK()")
	}
}

// rangeChan rewrites a range loop over a channel to a loop of receives.
// Each iteration declares its variables afresh, as a range loop does since
// Go 1.22; for files of an older language version the variables are
// declared once, outside the loop, as they were then.
func (r *rewriter) rangeChan(n *ast.RangeStmt) {
	ch, ok := r.typeOf(n.X).(*types.Chan)
	if !ok {
		return
	}
	op, goChan, ok := r.waitOp(n.X, n, "range")
	if !ok {
		return
	}
	// The channel is evaluated once, before the loop, as range does:
	// received from again at each iteration, Workiva/go-datastructures'
	// `for _ = range c.Iterator(nil)` started an iterator for every entry,
	// and never ended.
	loop := "for {"
	if !plainRef(n.X) {
		c := r.temp("ch")
		loop = "for " + c + " := " + op + "; ; {"
		op = c
	}
	ok1 := r.temp("ok")
	recv := "(" + op + ").RecvOK()"
	if goChan {
		recv = r.sim("RecvOKGo") + "(" + op + ")"
	}
	var head, tail string
	switch {
	case n.Key == nil:
		head = loop + " if _, " + ok1 + " := " + recv + "; !" + ok1 + " { break };"
	case n.Tok == token.ASSIGN:
		v := r.temp("v")
		head = loop + " " + v + ", " + ok1 + " := " + recv + "; if !" + ok1 + " { break }; " + r.text(n.Key) + " = " + v + ";"
	case oldLoopVars(r.goVer) && !isBlank(n.Key):
		typ, ok := r.typeText(ch.Elem())
		if !ok {
			r.skip(n, "range over a channel", "its variable keeps Go 1.22's per-iteration semantics: its type cannot be spelled here")
			head = loop + " " + r.text(n.Key) + ", " + ok1 + " := " + recv + "; if !" + ok1 + " { break };"
			break
		}
		v := r.temp("v")
		head = "{ var " + r.text(n.Key) + " " + typ + "; " + loop + " " + v + ", " + ok1 + " := " + recv + "; if !" + ok1 + " { break }; " + r.text(n.Key) + " = " + v + ";"
		tail = "}"
	default:
		head = loop + " " + r.text(n.Key) + ", " + ok1 + " := " + recv + "; if !" + ok1 + " { break };"
	}
	start := r.off(n.For)
	if tail != "" {
		// The block that declares the variable goes before the loop's
		// label, if it has one.
		if l, ok := r.parentOf(n).(*ast.LabeledStmt); ok && l.Stmt == n {
			start = r.off(l.Pos())
			head = strings.Replace(head, loop, r.text(l.Label)+": "+loop, 1)
		}
	}
	end := r.off(n.Body.Lbrace) + 1
	head += strings.Repeat("\n", strings.Count(string(r.ed.src[start:end]), "\n"))
	r.ed.replace(start, end, head)
	if tail != "" {
		r.ed.insert(r.off(n.Body.Rbrace)+1, tail)
	}
}

// plainRef reports whether x names a channel without evaluating anything
// that could change or cost (a variable, a field): a range loop over it
// may read it at each iteration.
func plainRef(x ast.Expr) bool {
	switch x := x.(type) {
	case *ast.Ident:
		return true
	case *ast.ParenExpr:
		return plainRef(x.X)
	case *ast.SelectorExpr:
		return plainRef(x.X)
	}
	return false
}

// oldLoopVars reports whether a Go language version predates per-iteration
// loop variables (Go 1.22).
func oldLoopVars(v string) bool {
	n, ok := minorVersion(v)
	return ok && n < 22
}

// minorVersion returns the minor number of a Go 1 language version
// ("go1.21.3" → 21).
func minorVersion(v string) (int, bool) {
	v = strings.TrimPrefix(v, "go")
	major, minor, _ := strings.Cut(v, ".")
	if major != "1" {
		return 0, false
	}
	m, _, _ := strings.Cut(minor, ".")
	m, _, _ = strings.Cut(m, "rc")
	n, err := strconv.Atoi(m)
	return n, err == nil
}
