// Package timeline is the picture of an execution: one lane per goroutine,
// its events in order as boxes labeled with the operation and its call
// site, the periods each goroutine waited shaded, the synchronization that
// linked goroutines as arrows (a send to its receive, an unlock to the next
// lock, a go statement to the goroutine it started), the preemptions of
// the schedule and the failure marked.
//
// The model is plain data (lanes, boxes on a shared axis of positions,
// spans, links), built from a traced execution by FromResult or by hand
// for other pictures (a history of operations, say), and drawn by two
// renderers: HTML, one self-contained page with the picture as SVG, and
// Perfetto, Chrome trace-event JSON that ui.perfetto.dev and
// chrome://tracing open. It marshals to JSON as it is, so that a process
// that ran the execution can hand it to one that draws it.
package timeline

import "time"

// A Timeline is a picture: lanes side by side, boxes placed on them at
// positions of one axis (the order of events), spans shading stretches of a
// lane, and links between boxes.
type Timeline struct {
	// Title heads the picture: the test's name, say.
	Title string `json:"title"`
	// Notes are lines under the title: the failure, how it was found.
	Notes []string `json:"notes,omitempty"`
	// Lanes, in the order they are drawn.
	Lanes []Lane `json:"lanes"`
	// Boxes, in order of position.
	Boxes []Box `json:"boxes"`
	// Spans shade stretches of lanes.
	Spans []Span `json:"spans,omitempty"`
	// Links join boxes of different lanes.
	Links []Link `json:"links,omitempty"`
	// Steps is the length of the axis: every position is below it.
	Steps int `json:"steps"`
	// Omitted says how many events at the start of the execution the
	// picture leaves out (a trace keeps the last sched.MaxTrace events).
	Omitted int `json:"omitted,omitempty"`
}

// A Lane is a goroutine, or whatever a picture puts side by side.
type Lane struct {
	// Name is the goroutine's lineage, such as "0.2".
	Name string `json:"name"`
	// Note says more: how the goroutine ended, who started it.
	Note string `json:"note,omitempty"`
	// Idle lanes play no part in a preemption, the failure or a link
	// with a lane that does: drawn narrow, so that a picture of many
	// goroutines stays readable.
	Idle bool `json:"idle,omitempty"`
}

// A BoxKind says what a box stands for.
type BoxKind string

// The kinds of boxes.
const (
	// Event: a goroutine reached an operation.
	Event BoxKind = "event"
	// Continuation: a goroutine reached the same operation again after
	// waiting in it (an unbuffered send that waits for its receiver).
	Continuation BoxKind = "continuation"
	// Preempted: the goroutine could have gone on with its operation, and
	// the schedule ran another instead.
	Preempted BoxKind = "preempted"
	// Failure: where the execution failed (the failing goroutine's last
	// event, or a goroutine stuck in a deadlock or leak).
	Failure BoxKind = "failure"
)

// A Box is one event on a lane.
type Box struct {
	Lane int `json:"lane"`
	// At is the box's position on the axis; it spans Len positions (at
	// least one).
	At  int `json:"at"`
	Len int `json:"len,omitempty"`
	// Time is the virtual time at the event, since the execution's start,
	// and Dur how long the box lasts in it (Perfetto draws it so).
	Time time.Duration `json:"time"`
	Dur  time.Duration `json:"dur"`
	// Op names the operation, such as "Mutex.Lock".
	Op string `json:"op"`
	// Site is the file:line of the code that performed it.
	Site string  `json:"site,omitempty"`
	Kind BoxKind `json:"kind"`
	// Note says more, as a tooltip: the preemption, the failure.
	Note string `json:"note,omitempty"`
}

// End returns the position after the box.
func (b Box) End() int { return b.At + max(b.Len, 1) }

// A SpanKind says what a lane was doing over a span.
type SpanKind string

// The kinds of spans.
const (
	// Blocked: the goroutine could not go on with its operation.
	Blocked SpanKind = "blocked"
	// Ready: the goroutine could have gone on, and others ran (after a
	// preemption).
	Ready SpanKind = "ready"
)

// A Span shades positions [From, To) of a lane.
type Span struct {
	Lane int      `json:"lane"`
	From int      `json:"from"`
	To   int      `json:"to"`
	Kind SpanKind `json:"kind"`
	// FromTime and ToTime are the virtual times at From and To.
	FromTime time.Duration `json:"fromTime"`
	ToTime   time.Duration `json:"toTime"`
	Note     string        `json:"note,omitempty"`
}

// A Link joins two boxes: what From did let To go on.
type Link struct {
	From int `json:"from"` // index in Boxes
	To   int `json:"to"`   // index in Boxes
	// Kind is the synchronization: "chan" (a send and its receive),
	// "lock" (an unlock and the next lock), "go" (a go statement and the
	// goroutine's first event), "wait" (a WaitGroup's Done, a Cond's
	// Signal, and the Wait they released).
	Kind string `json:"kind"`
	// At is the position where To's goroutine went on because of it (at
	// or after To's box, for a To that waited).
	At   int    `json:"at"`
	Note string `json:"note,omitempty"`
}
