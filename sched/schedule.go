package sched

import (
	"bytes"
	"encoding/gob"
	"fmt"
)

// A ChoiceKind tells what a Choice decided.
type ChoiceKind uint8

const (
	// RunChoice chose which goroutine runs next at a scheduling point.
	RunChoice ChoiceKind = iota + 1
	// PickChoice chose a value, for sim.Intn or among the ready cases of a
	// select.
	PickChoice
)

// A Choice is one decision of an execution that differs from the default
// policy. It is named by the event at which it was made, (G, N): goroutine G
// was at its N-th event. Identities survive code changes better than the
// index of the decision in the execution.
type Choice struct {
	Kind ChoiceKind
	G    string // lineage of the goroutine at whose event the choice was made
	N    int    // that goroutine's event counter, from 1
	// K counts the decisions made earlier at the same event: after the
	// clock fires, the strategy decides again before anything runs.
	K    int
	Site string // file:line of that event, when known; used to report drift
	Op   string // the operation at that event, when known
	// RunChoice: the goroutine that runs next, or "clock" (Clock's ID):
	// the earliest pending timer fired first.
	Next string
	// RunChoice: the goroutine at the event could have continued, so choosing
	// another one preempted it.
	Preempt bool
	// PickChoice: the value chosen, in [0, Of).
	Value, Of int
}

// A Schedule is the explicit choice list of an execution: every decision
// that differs from the default policy, in the order it was made. Together
// with the default policy it determines the execution completely, so it
// replays without the strategy that found it.
//
// The default policy: the running goroutine continues while it can (it is
// enabled and did not yield); otherwise the first enabled goroutine after it
// in creation order runs, wrapping around. A Pick defaults to 0.
type Schedule []Choice

// Schedule returns the choices of the execution that differ from the
// default policy. Replaying it reproduces the execution. It is built on
// the first call (see Release: not after the Result was released).
func (r *Result) Schedule() Schedule {
	c := r.from
	if c == nil {
		return r.schedule
	}
	c.schedMu.Lock()
	defer c.schedMu.Unlock()
	if !r.built {
		r.schedule = c.schedule()
		if r.Trace != nil {
			r.schedule.annotate(r.Trace)
		}
		r.built = true
	}
	return r.schedule
}

// SetSchedule makes s r's schedule, for a Result made by hand (a test's
// stand-in for an execution's).
func (r *Result) SetSchedule(s Schedule) {
	r.schedule, r.from = s, nil
}

// Preemptions counts the choices that switched away from a goroutine that
// could have continued.
func (s Schedule) Preemptions() int {
	n := 0
	for _, c := range s {
		if c.Kind == RunChoice && c.Preempt {
			n++
		}
	}
	return n
}

// annotate fills in the call sites of the choices from a trace of the same
// execution.
func (s Schedule) annotate(trace []Event) {
	type at struct {
		g string
		n int
	}
	sites := make(map[at]string, len(s))
	for _, c := range s {
		sites[at{c.G, c.N}] = ""
	}
	for _, e := range trace {
		if _, ok := sites[at{e.G, e.N}]; ok {
			sites[at{e.G, e.N}] = e.Site
		}
	}
	for i := range s {
		s[i].Site = sites[at{s[i].G, s[i].N}]
	}
}

// resultFields is Result without its methods: what gob encodes of it, its
// exported fields.
type resultFields Result

// resultGob is a Result as GobEncode writes it: its exported fields, and
// its schedule, built.
type resultGob struct {
	Result   *resultFields
	Schedule Schedule
}

// GobEncode encodes r's exported fields and its Schedule, which a worker
// process sends up with the Result of a failing execution.
func (r *Result) GobEncode() ([]byte, error) {
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(resultGob{(*resultFields)(r), r.Schedule()}); err != nil {
		return nil, fmt.Errorf("sched: encoding a Result: %w", err)
	}
	return b.Bytes(), nil
}

// GobDecode decodes a Result GobEncode encoded into r.
func (r *Result) GobDecode(data []byte) error {
	g := resultGob{Result: (*resultFields)(r)}
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&g); err != nil {
		return fmt.Errorf("sched: decoding a Result: %w", err)
	}
	r.SetSchedule(g.Schedule)
	return nil
}
