package lin

import (
	"fmt"
	"strings"

	"github.com/weftdev/weft/internal/text"
	"pgregory.net/rapid"
)

// A call is one operation of a scenario, with its argument.
type call struct {
	op   int // index in Spec.Ops
	name string
	arg  any
	has  bool // the operation takes an argument
}

func (c call) String() string {
	if !c.has {
		return c.name + "()"
	}
	return fmt.Sprintf("%s(%v)", c.name, c.arg)
}

// calls is a list of calls, logged by rapid in a form a reader can follow.
type calls []call

// GoString lists the calls.
func (cs calls) GoString() string {
	if len(cs) == 0 {
		return "none"
	}
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = c.String()
	}
	return strings.Join(parts, ", ")
}

// lanes is the concurrent part of a scenario, logged by rapid as one list
// of calls per goroutine.
type lanes []calls

// GoString lists the calls of each goroutine.
func (ls lanes) GoString() string {
	parts := make([]string, len(ls))
	for i, l := range ls {
		parts[i] = fmt.Sprintf("[%s]", l.GoString())
	}
	return strings.Join(parts, " | ")
}

// A scenario is what one case runs: calls by the root goroutine, then the
// calls of several goroutines at once, then calls by the root again once
// they have returned.
type scenario struct {
	init  calls
	lanes lanes
	final calls
}

// size counts the calls of the scenario.
func (s *scenario) size() int {
	n := len(s.init) + len(s.final)
	for _, l := range s.lanes {
		n += len(l)
	}
	return n
}

// describe says how big the scenario is.
func (s *scenario) describe() string {
	n := s.size()
	return text.Count(n, "operation") + " on " + text.Count(len(s.lanes), "goroutine")
}

// drawScenario draws a scenario of the spec's shape from r.
func drawScenario[O, S any](r *rapid.T, sp *Spec[O, S]) *scenario {
	sh := sp.shape()
	one := rapid.Custom(func(r *rapid.T) call {
		i := rapid.IntRange(0, len(sp.Ops)-1).Draw(r, "op")
		op := sp.Ops[i]
		c := call{op: i, name: op.name}
		if op.arg != nil {
			c.arg, c.has = op.arg(r, op.name), true
		}
		return c
	})
	list := func(lo, hi int) *rapid.Generator[calls] {
		return rapid.Custom(func(r *rapid.T) calls {
			return rapid.SliceOfN(one, lo, hi).Draw(r, "calls")
		})
	}
	s := &scenario{}
	if sh.init > 0 {
		s.init = list(0, sh.init).Draw(r, "init")
	}
	s.lanes = rapid.Custom(func(r *rapid.T) lanes {
		ls := rapid.SliceOfN(list(1, sh.perG), 1, sh.goroutines).Draw(r, "lanes")
		return lanes(ls)
	}).Draw(r, "goroutines")
	if sh.final > 0 {
		s.final = list(0, sh.final).Draw(r, "final")
	}
	return s
}
