package sim

import (
	"math/rand/v2"
	"reflect"

	"github.com/weftdev/weft/sched"
)

// A select of a goroutine outside every execution (a server's handler
// on a goroutine net/http started, which left the execution: see
// visit) that waits on the channels of an execution still running
// visits it, as a channel's Send and Recv do: the controller completes
// one of its cases on the execution's side of its channel when none of
// the execution's goroutines can run (statedb's changes handler waits
// for the watch channel that the test's commit closes, a ticker of its
// own, and its request's context). Meanwhile the goroutine polls the
// cases that are not the execution's (a Go channel, a channel of no
// execution, a value sent in plain mode) at every round of the visit:
// the first case either side completes is the select's. A select with a
// default visits only if it sends on an execution's channel (statedb's
// delete tracker triggers its collector so), which the plain channel
// would hide: the controller completes a case that can proceed on the
// execution's side when it performs the visit, or else the default.
// Its receives on the execution's channels see the plain side alone, at
// once, as before: what the execution closed, and values sent in plain
// mode.

// A caseVisit is a case of a select from outside on the execution's side
// of its channel: it performs the case on g if it can at once, and
// returns what completes the case on the goroutine outside (its
// function), or nil if it cannot proceed.
type caseVisit func(c Case, g *sched.G) func()

// visiting returns, if the state of ch belongs to an execution, its
// controller, the execution, the channel's object, and the case's visit.
//
//go:norace
func (ch *Chan[T]) visiting() (*sched.Controller, uint64, uint32, caseVisit) {
	s := ch.st
	if s == nil || s.ctl == nil || s.exec == 0 {
		return nil, 0, 0, nil
	}
	return s.ctl, s.exec, s.id, s.visitCase
}

// visitCase performs case c of a select from outside on s, a channel's
// state in its execution, on g (see caseVisit).
//
//go:norace
func (s *chanState[T]) visitCase(c Case, g *sched.G) func() {
	if c.dir == caseSend {
		if !s.canSend(nil) {
			return nil
		}
		if s.closed {
			return func() { panic("send on closed channel") }
		}
		s.send(sendValue[T](c), nil)
		g.Touch(s.id)
		return func() { callFunc(c) }
	}
	if !s.canRecv(nil) {
		return nil
	}
	v, ok := s.recv(nil)
	g.Touch(s.id)
	return func() { deliverRecv(c, v, ok) }
}

// visiting: a Go channel belongs to no execution.
func (*goChan[T]) visiting() (*sched.Controller, uint64, uint32, caseVisit) {
	return nil, 0, 0, nil
}

// selectVisit is a select from a goroutine outside every execution,
// while one runs in the process, with its default case def (-1: none):
// if a case's channel is an execution's, it waits for one of its cases as
// a visit of that execution (see above), or for the visit if def is a
// case, and returns the index of the case it completed and true. It
// returns false if no case's channel belongs to a running execution, or
// that execution ended first: the caller goes on in plain mode.
func selectVisit(cases []Case, def int) (int, bool) {
	var ctl *sched.Controller
	var exec uint64
	var obj uint32
	var what string
	visits := make([]caseVisit, len(cases))
	for i, c := range cases {
		if c.ch == nil || c.dir == caseDefault {
			continue
		}
		cc, e, id, v := c.ch.visiting()
		if cc == nil || ctl != nil && (cc != ctl || e != exec) {
			continue // plain, or another execution's: polled
		}
		if ctl == nil {
			ctl, exec, obj, what = cc, e, id, reflect.TypeOf(c.ch).String()
		}
		visits[i] = v
	}
	if ctl == nil {
		return 0, false
	}
	chosen := -1
	var finish func()
	try := func(g *sched.G) bool {
		for i, v := range visits {
			if v != nil {
				if f := v(cases[i], g); f != nil {
					chosen, finish = i, f
					return true
				}
			}
		}
		if def >= 0 {
			chosen, finish = def, func() { callFunc(cases[def]) }
			return true
		}
		return false
	}
	poll := func() bool {
		if i := pollCases(cases, visits); i >= 0 {
			chosen = i
			return true
		}
		return false
	}
	if poll() {
		return chosen, true
	}
	if def >= 0 {
		poll = nil // the visit completes the select when performed
	}
	if !ctl.VisitOr(exec, opSelect, obj, what, try, poll) {
		return 0, false
	}
	if finish != nil {
		finish()
	}
	return chosen, true
}

// sendsTo reports whether a case of a select sends on a channel whose
// state belongs to an execution.
func sendsTo(cases []Case) bool {
	for _, c := range cases {
		if c.ch != nil && c.dir == caseSend {
			if ctl, _, _, _ := c.ch.visiting(); ctl != nil {
				return true
			}
		}
	}
	return false
}

// pollCases performs at once, on the plain side, one of the cases that can
// proceed there, starting at a random one, and returns its index, or -1:
// every case but a send on an execution's channel (visits, non-nil for the
// execution's), which the execution would not see.
func pollCases(cases []Case, visits []caseVisit) int {
	n := len(cases)
	start := rand.IntN(n)
	for k := range n {
		i := (start + k) % n
		c := cases[i]
		if c.ch == nil || c.dir == caseDefault || c.dir == caseSend && visits[i] != nil {
			continue
		}
		if c.ch.try(c) {
			return i
		}
	}
	return -1
}
