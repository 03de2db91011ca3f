package lin

import (
	"fmt"
	"reflect"
	"sync/atomic"

	"github.com/anishathalye/porcupine"

	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
	weft "github.com/weftdev/weft/testing"
)

// A record is one call of an execution: when it was called and when it
// returned, in the order of the execution's events, and what it returned.
type record struct {
	call       call
	lane       int // 0: the root goroutine (init and final calls); i: the i-th goroutine
	start, end int64
	result     any
	goroutine  string // lineage
}

// A history is what an execution of a scenario did, call by call.
type history struct {
	clock atomic.Int64 // plain atomics: one goroutine runs at a time, and -race sees them ordered
	init  []record
	lanes [][]record
	final []record
}

// runScenario runs a scenario on a new object, under weft's controller: the
// init calls, then one goroutine per lane, then the final calls once they
// have all returned.
func runScenario[O, S any](sp *Spec[O, S], s *scenario) (*history, func(*weft.T)) {
	h := &history{lanes: make([][]record, len(s.lanes))}
	return h, func(*weft.T) {
		o := sp.New()
		root := sched.Current().ID()
		for _, c := range s.init {
			h.init = append(h.init, do(h, sp, o, c, 0, root))
		}
		var wg sim.WaitGroup
		for i, l := range s.lanes {
			h.lanes[i] = make([]record, 0, len(l))
			wg.Go(func() {
				id := sched.Current().ID()
				for _, c := range l {
					h.lanes[i] = append(h.lanes[i], do(h, sp, o, c, i+1, id))
				}
			})
		}
		wg.Wait()
		for _, c := range s.final {
			h.final = append(h.final, do(h, sp, o, c, 0, root))
		}
	}
}

// do makes one call, stamping its call and return.
func do[O, S any](h *history, sp *Spec[O, S], o O, c call, lane int, g string) record {
	r := record{call: c, lane: lane, goroutine: g, start: h.clock.Add(1)}
	r.result = sp.Ops[c.op].run(o, c.arg)
	r.end = h.clock.Add(1)
	return r
}

// records returns every call of the history.
func (h *history) records() []record {
	out := append([]record(nil), h.init...)
	for _, l := range h.lanes {
		out = append(out, l...)
	}
	return append(out, h.final...)
}

// model is the spec's sequential model, as porcupine checks histories
// against it.
func (sp *Spec[O, S]) model() porcupine.Model {
	return porcupine.Model{
		Init: func() any { return sp.Init() },
		Step: func(state, input, output any) (bool, any) {
			c := input.(call)
			next, want := sp.Ops[c.op].step(state.(S), c.arg)
			return reflect.DeepEqual(want, output), next
		},
		Equal:             func(a, b any) bool { return sp.equal(a.(S), b.(S)) },
		DescribeOperation: func(in, out any) string { return fmt.Sprintf("%v → %s", in.(call), result(out)) },
		DescribeState:     func(s any) string { return fmt.Sprintf("%v", s) },
	}
}

// operations turns the records into porcupine's operations, one client
// per goroutine.
func operations(rs []record) []porcupine.Operation {
	ops := make([]porcupine.Operation, len(rs))
	for i, r := range rs {
		ops[i] = porcupine.Operation{ClientId: r.lane, Input: r.call, Call: r.start, Output: r.result, Return: r.end}
	}
	return ops
}

// result formats an operation's result.
func result(v any) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%v", v)
}
