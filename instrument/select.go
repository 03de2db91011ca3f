package instrument

import (
	"fmt"
	"go/ast"
	"go/scanner"
	"go/token"
	"go/types"
	"strconv"
	"strings"
)

// selectStmt rewrites a select statement to a switch on sim.Select:
//
//	select {
//	case v := <-c1:
//	case c2 <- x:
//	case <-ext.Ready():
//	default:
//	}
//
// becomes, with the same lines,
//
//	{ var weftv1 T; switch weftsim.Select(weftsim.OnRecv(c1, func(x T) { weftv1 = x }), weftsim.OnSend(c2, x, nil), weftsim.OnRecvGo(ext.Ready(), nil), weftsim.OnDefault(nil)) {
//	case 0: v := weftv1;
//	case 1:
//	case 2:
//	default:
//	}}
//
// The channel and value expressions are evaluated in source order, once,
// on entering the select, as Go does; a case expression that spans lines
// is put on one. A case on a channel that stays a Go channel (one that
// comes from code weft does not instrument) is a Go case of sim.Select,
// which polls it, even when every case is one: a select left to block in
// Go's runtime would block outside weft's control, waiting for a
// controlled goroutine that cannot run meanwhile (a sender that polls the
// same Go channel: oklog/run's signal handler and its test).
func (r *rewriter) selectStmt(n *ast.SelectStmt) {
	if why := r.skipped(n); why != "" {
		r.skip(n, "select", why)
		return
	}
	if len(n.Body.List) == 0 {
		// select {} blocks forever, and is a terminating statement.
		r.site(n, nil, "select")
		r.replace(n, "{ "+r.sim("Select")+"(); panic(\"unreachable\") }")
		return
	}
	cases := make([]selectCase, len(n.Body.List))
	for i, s := range n.Body.List {
		cases[i] = r.selectCase(s.(*ast.CommClause))
	}
	// One clause becomes the switch's default: the select's default if it
	// has one, else its last case. A switch with a default whose clauses all
	// end in a terminating statement terminates, as such a select does.
	def := len(n.Body.List) - 1
	for i, c := range cases {
		if c.ch == nil {
			def = i
		}
	}
	var decls, calls, heads []string
	for i, c := range cases {
		head := fmt.Sprintf("case %d:", i)
		if i == def {
			head = "default:"
		}
		call, vars, ok := r.caseCall(n, c, &decls)
		if !ok {
			return
		}
		calls = append(calls, call)
		if as, ok := c.cc.Comm.(*ast.AssignStmt); ok {
			head += " " + r.bind(as, vars)
		}
		nl := strings.Count(r.plain(&clauseHead{c.cc}), "\n")
		heads = append(heads, head+strings.Repeat("\n", nl))
	}
	r.site(n, nil, "select")
	for i, c := range cases {
		r.ed.replace(r.off(c.cc.Case), r.off(c.cc.Colon)+1, heads[i])
	}
	call := r.sim("Select") + "(" + strings.Join(calls, ", ") + ")"
	r.ed.replace(r.off(n.Select), r.off(n.Body.Lbrace)+1, "{ "+strings.Join(decls, " ")+" switch "+call+" {")
	r.ed.insert(r.off(n.Body.Rbrace)+1, "}")
}

// selectCase is one case of a select.
type selectCase struct {
	cc    *ast.CommClause
	ch    ast.Expr // the channel; nil for default
	value ast.Expr // a send's value
	raw   string   // why the channel stays a Go channel, if it does
}

func (r *rewriter) selectCase(cc *ast.CommClause) selectCase {
	c := selectCase{cc: cc}
	switch comm := cc.Comm.(type) {
	case *ast.SendStmt:
		c.ch, c.value = comm.Chan, comm.Value
	case *ast.ExprStmt:
		c.ch = ast.Unparen(comm.X).(*ast.UnaryExpr).X
	case *ast.AssignStmt:
		c.ch = ast.Unparen(comm.Rhs[0]).(*ast.UnaryExpr).X
	}
	if c.ch != nil {
		c.raw = r.pr.flow.rawWhy(r.pr.flow.node(c.ch))
	}
	return c
}

// caseCall returns the sim.Select case of c, and the temporaries that
// receive its values (declared in decls).
func (r *rewriter) caseCall(n *ast.SelectStmt, c selectCase, decls *[]string) (string, []string, bool) {
	if c.ch == nil {
		return r.sim("OnDefault") + "(nil)", nil, true
	}
	suffix, ch := "", r.oneLine(c.ch)
	if c.raw != "" {
		suffix = "Go"
		r.skip(c.cc, "select case", c.raw+"; the select polls it")
	} else {
		r.site(c.ch, r.pr.flow.node(c.ch), "select case")
		if _, w := r.pr.wrapped(r.info.TypeOf(c.ch)); w {
			ch = "(" + ch + ")." + chanField
		}
	}
	if c.value != nil {
		v, ok := r.sendText(c.ch, c.value, c.raw != "", r.oneLine(c.value))
		if !ok {
			r.skip(n, "select", "the channel's element type cannot be spelled here")
			return "", nil, false
		}
		return r.sim("OnSend"+suffix) + "(" + ch + ", " + v + ", nil)", nil, true
	}
	as, ok := c.cc.Comm.(*ast.AssignStmt)
	if !ok {
		return r.sim("OnRecv"+suffix) + "(" + ch + ", nil)", nil, true
	}
	chT, ok := r.typeOf(c.ch).(*types.Chan)
	if !ok {
		return "", nil, false
	}
	elem, ok := r.elemText(chT.Elem(), c.raw != "")
	if !ok {
		r.skip(n, "select", "the type of a received value cannot be spelled here")
		return "", nil, false
	}
	var vars, assign, params []string
	for i, l := range as.Lhs {
		name := "_"
		if !(as.Tok == token.DEFINE && isBlank(l)) {
			prefix := "v"
			if i == 1 {
				prefix = "ok"
			}
			name = r.temp(prefix)
			typ := elem
			if i == 1 {
				typ = "bool"
			}
			*decls = append(*decls, "var "+name+" "+typ+";")
			assign = append(assign, name+" = "+[]string{"x", "ok"}[i])
		}
		vars = append(vars, name)
	}
	params = []string{"x " + elem}
	fn := "OnRecv"
	if len(as.Lhs) == 2 {
		params, fn = append(params, "ok bool"), "OnRecvOK"
	}
	body := strings.Join(assign, "; ")
	return r.sim(fn+suffix) + "(" + ch + ", func(" + strings.Join(params, ", ") + ") { " + body + " })", vars, true
}

// elemText spells a channel's element type: for a Go channel, as the
// standard library's types.
func (r *rewriter) elemText(t types.Type, raw bool) (string, bool) {
	if raw {
		old := r.rawTypes
		r.rawTypes = true
		defer func() { r.rawTypes = old }()
	}
	return r.typeText(t)
}

// oneLine returns the text of a case expression, on one line.
func (r *rewriter) oneLine(e ast.Expr) string {
	if s := r.plain(e); strings.Contains(s, "\n") {
		return flatten(s)
	}
	return r.text(e)
}

// flatten puts Go source text on one line: its tokens joined by spaces,
// the semicolons the scanner inserts at line ends written out, comments
// dropped, and raw strings that span lines quoted.
func flatten(src string) string {
	fset := token.NewFileSet()
	file := fset.AddFile("", -1, len(src))
	var s scanner.Scanner
	s.Init(file, []byte(src), nil, 0)
	var out []string
	for {
		_, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		switch {
		case tok == token.SEMICOLON:
			out = append(out, ";")
		case tok == token.STRING && strings.HasPrefix(lit, "`") && strings.Contains(lit, "\n"):
			out = append(out, strconv.Quote(lit[1:len(lit)-1]))
		case lit != "":
			out = append(out, lit)
		default:
			out = append(out, tok.String())
		}
	}
	for len(out) > 0 && out[len(out)-1] == ";" {
		out = out[:len(out)-1]
	}
	return strings.Join(out, " ")
}

// bind assigns the values received by a select case to the case's own
// variables: v := weftv1, or v, ok = weftv1, weftok2.
func (r *rewriter) bind(comm *ast.AssignStmt, vars []string) string {
	var lhs, rhs []string
	for i, l := range comm.Lhs {
		if vars[i] == "_" {
			continue
		}
		lhs, rhs = append(lhs, r.text(l)), append(rhs, vars[i])
	}
	if len(lhs) == 0 {
		return ""
	}
	op := " = "
	if comm.Tok == token.DEFINE {
		op = " := "
	}
	return strings.Join(lhs, ", ") + op + strings.Join(rhs, ", ") + ";"
}

// clauseHead is the "case ...:" part of a select clause, as a node.
type clauseHead struct{ cc *ast.CommClause }

func (h *clauseHead) Pos() token.Pos { return h.cc.Case }
func (h *clauseHead) End() token.Pos { return h.cc.Colon + 1 }
