package sim

import (
	"bytes"
	"fmt"
	"runtime"
	"strconv"
	"strings"

	"github.com/weftdev/weft/sched"
)

// syntheticIDs is where the ids a dump gives to an execution's goroutines
// begin, the root's but for the test's own goroutine's: a controlled
// goroutine runs on a pooled worker, which runs others before and after
// it, so the worker's id would name several goroutines in turn, and a
// leak checker that remembers the ids of the goroutines it saw
// (goleak.IgnoreCurrent) would take a new goroutine for one it had seen.
// An index of the execution's goroutines added to it is unique, the same
// in every replay, and above the ids of the process's goroutines.
const syntheticIDs = 1_000_000_000

// A dumper rewrites a goroutine dump taken by a controlled goroutine into
// the one go test would show: each of the execution's goroutines with an
// id of its own, its state as Go names it, the test's body as the test
// function itself, and the go statement that started it on its
// "created by" line; the goroutines started but not yet run, runnable at
// their function's entry.
type dumper struct {
	ctl    uintptr
	test   string // the test's name, as the execution's options give it
	gs     []sched.DumpG
	byAddr map[uintptr]int // gs's index of a goroutine, by address

	rootID int64  // the root's id: the test's goroutine's, or syntheticIDs
	tail   []byte // the root's last frames and "created by": the test's goroutine's
	outer  string // the test function, whose closure weft runs as the body
	body   string // that closure: outer + ".func1"
}

// controlledDump is Stack's dump for g, a controlled goroutine.
func controlledDump(g *sched.G, dump []byte, all bool) []byte {
	d := &dumper{rootID: syntheticIDs, byAddr: map[uintptr]int{}}
	d.ctl, d.test, d.gs = g.Dump()
	for i, x := range d.gs {
		d.byAddr[x.Addr] = i
	}
	traces := bytes.Split(bytes.TrimRight(dump, "\n"), []byte("\n\n"))
	for _, t := range traces {
		d.findTest(t)
	}
	var out [][]byte
	for _, t := range traces {
		header, frames := parseTrace(t)
		var kept []byte
		if i, ok := d.mine(frames); ok {
			kept = d.trace(d.gs[i], header, frames)
		} else if k, ok := goroutineTrace(t); ok {
			kept = d.renamed(k)
		}
		if kept != nil {
			out = append(out, kept)
		}
		if !all && len(out) > 0 {
			break // the current goroutine, which the runtime's dump begins with
		}
	}
	if all {
		for _, x := range d.gs {
			if !x.Started {
				out = append(out, d.unstarted(x))
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return append(bytes.Join(out, []byte("\n\n")), '\n')
}

// findTest looks in trace t for the test's own goroutine, which waits in
// weft's testing.Test for the executions of its body: its id is the
// root's, its frames below the test function are the root's last, and the
// test function's name is the body's as go test shows it.
func (d *dumper) findTest(t []byte) {
	top, _, _ := strings.Cut(d.test, "/")
	if top == "" || d.outer != "" {
		return
	}
	header, frames := parseTrace(t)
	for i, f := range frames {
		if !bytes.HasPrefix(f.fn, []byte(weftPrefix+"testing.Test(")) || i+1 >= len(frames) {
			continue
		}
		name := funcName(frames[i+1].fn)
		if !strings.HasSuffix(name, "."+top) {
			return
		}
		id, _, ok := headerID(header)
		if !ok {
			return
		}
		d.rootID, d.outer, d.body = id, name, name+".func1"
		for _, f := range frames[i+2:] {
			d.tail = appendFrame(d.tail, f)
		}
		return
	}
}

// mine returns the index in d.gs of the goroutine whose trace has frames,
// if it is one of the execution's: the arguments of Controller.goroutine
// in the trace are the controller and the goroutine.
func (d *dumper) mine(frames []frame) (int, bool) {
	for _, f := range frames {
		args, ok := bytes.CutPrefix(f.fn, []byte(weftPrefix+"sched.(*Controller).goroutine("))
		if !ok {
			continue
		}
		as := strings.Split(strings.TrimSuffix(string(args), ")"), ", ")
		if len(as) < 2 || parseAddr(as[0]) != d.ctl {
			return 0, false
		}
		i, ok := d.byAddr[parseAddr(as[1])]
		return i, ok
	}
	return 0, false
}

// trace is the trace of goroutine x of the execution, from its header and
// frames in the runtime's dump.
func (d *dumper) trace(x sched.DumpG, header []byte, frames []frame) []byte {
	kept, _ := keptFrames(frames)
	_, state, _ := headerID(header)
	if x.State != "" {
		state = x.State
	}
	if bytes.HasPrefix(kept, []byte("\ntesting.(*T).Run(")) {
		// weft's TB.Run, waiting for its subtest: go test's waits on a
		// channel, in the state goleak looks for in the test runner's.
		state = "chan receive"
	}
	out := fmt.Appendf(nil, "goroutine %d [%s]:", d.id(x.Index), state)
	out = append(out, d.renamed(kept)...)
	if x.Parent < 0 {
		return append(out, d.tail...)
	}
	for _, f := range frames {
		if bytes.HasPrefix(f.fn, []byte(weftPrefix+"testing.(*T).Run.func")) {
			// A subtest, which weft's T.Run starts as testing's does.
			return fmt.Appendf(out, "\ncreated by testing.(*T).Run in goroutine %d", d.id(x.Parent))
		}
	}
	return append(out, d.createdBy(x)...)
}

// unstarted is the trace of goroutine x, started but not yet run: Go shows
// it runnable, at its function's entry.
func (d *dumper) unstarted(x sched.DumpG) []byte {
	out := fmt.Appendf(nil, "goroutine %d [runnable]:", d.id(x.Index))
	if fn := runtime.FuncForPC(x.Fn); fn != nil {
		file, line := fn.FileLine(x.Fn)
		out = fmt.Appendf(out, "\n%s()\n\t%s:%d", d.rename(fn.Name()), file, line)
	}
	return append(out, d.createdBy(x)...)
}

// createdBy is the "created by" line of goroutine x, after a newline, with
// its file line: the function whose go statement started it (the closure
// x runs is that function's), the goroutine that ran it, and the
// statement's line (the closure's own); "" if a timer started x, or the go
// statement is weft's own.
func (d *dumper) createdBy(x sched.DumpG) []byte {
	fn := runtime.FuncForPC(x.Fn)
	if !x.GoStmt || x.Parent < 0 || fn == nil {
		return nil
	}
	creator, ok := enclosing(d.rename(fn.Name()))
	if !ok {
		return nil
	}
	if f := syncTwin(frame{fn: []byte(creator + "(")}); !f.weft() {
		creator = strings.TrimSuffix(string(f.fn), "(")
	} else {
		return nil
	}
	file, line := fn.FileLine(x.Fn)
	return fmt.Appendf(nil, "\ncreated by %s in goroutine %d\n\t%s:%d", creator, d.id(x.Parent), file, line)
}

// enclosing returns the name of the function a closure is written in:
// pkg.F for pkg.F.func2, pkg.F.func2 for pkg.F.func2.1; false if name is
// no closure's.
func enclosing(name string) (string, bool) {
	i := strings.LastIndexByte(name, '.')
	if i < 0 {
		return "", false
	}
	last := strings.TrimPrefix(name[i+1:], "func")
	if last == "" || strings.Trim(last, "0123456789") != "" {
		return "", false
	}
	return name[:i], true
}

// id is the id the dump gives to the execution's goroutine of index i.
func (d *dumper) id(i int) int64 {
	if i == 0 {
		return d.rootID
	}
	return syntheticIDs + int64(i)
}

// renamed returns lines of a trace with the test's body named as go test
// names it (rename).
func (d *dumper) renamed(lines []byte) []byte {
	if d.body == "" || !bytes.Contains(lines, []byte(d.body)) {
		return lines
	}
	ls := bytes.Split(lines, []byte("\n"))
	for i, l := range ls {
		if len(l) > 0 && l[0] != '\t' {
			ls[i] = []byte(d.rename(string(l)))
		}
	}
	return bytes.Join(ls, []byte("\n"))
}

// rename returns a function's name (or a frame's line) as go test names
// it: weft runs a test's body as a closure of the test function,
// TestX.func1, which is TestX itself under go test, and its closures,
// TestX.func1.2, are TestX.func2.
func (d *dumper) rename(fn string) string {
	if d.body == "" {
		return fn
	}
	prefix := ""
	if p, ok := strings.CutPrefix(fn, "created by "); ok {
		prefix, fn = "created by ", p
	}
	rest, ok := strings.CutPrefix(fn, d.body)
	switch {
	case !ok:
	case rest == "" || rest[0] == '(' || rest[0] == ' ':
		return prefix + d.outer + rest
	case len(rest) > 1 && rest[0] == '.' && rest[1] >= '0' && rest[1] <= '9':
		return prefix + d.outer + ".func" + rest[1:]
	case rest[0] == '.':
		return prefix + d.outer + rest
	}
	return prefix + fn
}

// headerID returns the id and the state of a goroutine's header line,
// "goroutine 7 [chan receive, 2 minutes]:".
func headerID(header []byte) (int64, string, bool) {
	rest, ok := bytes.CutPrefix(header, []byte("goroutine "))
	if !ok {
		return 0, "", false
	}
	num, rest, _ := bytes.Cut(rest, []byte(" "))
	id, err := strconv.ParseInt(string(num), 10, 64)
	_, state, _ := bytes.Cut(rest, []byte("[")) // after gp=... with GOTRACEBACK=system
	state, _, _ = bytes.Cut(state, []byte("]"))
	return id, string(state), err == nil
}

// funcName is the function's name of a frame's line, without arguments.
func funcName(fn []byte) string {
	if i := bytes.LastIndexByte(fn, '('); i > 0 {
		return string(fn[:i])
	}
	return string(fn)
}

// parseAddr parses an argument of a traceback, "0xc000123456" (or with a
// "?" when it may be inaccurate), as an address; 0 if it is none.
func parseAddr(a string) uintptr {
	n, err := strconv.ParseUint(strings.TrimSuffix(a, "?"), 0, 64)
	if err != nil {
		return 0
	}
	return uintptr(n)
}

// appendFrame appends frame f's lines, each after a newline.
func appendFrame(out []byte, f frame) []byte {
	out = append(append(out, '\n'), f.fn...)
	if f.file != nil {
		out = append(append(out, '\n'), f.file...)
	}
	return out
}
