package timeline

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/weftdev/weft/internal/text"
	"github.com/weftdev/weft/sched"
)

// FromResult builds the picture of a traced execution (sched.Options.Trace):
// a lane per goroutine in the order they first appear, a box per event,
// the spans each goroutine waited, the links between goroutines (see
// links.go), the preemptions of r.Schedule() and r.Failure. Notes are added
// under the title as given; the failure comes first.
//
// Position i of the axis is event i of r.Trace. At an event, the goroutine
// reached an operation; it performs it when it next runs, which is right
// after the event if it went on, or after the event before its own next
// one otherwise. Between the two it waited: blocked if it could not go on,
// ready if a preemption of the schedule ran another goroutine instead.
func FromResult(r *sched.Result, title string, notes ...string) *Timeline {
	t := &Timeline{Title: title, Steps: len(r.Trace)}
	if r.Failure != nil {
		t.Notes = append(t.Notes, "failure: "+r.Failure.Summary())
	}
	t.Notes = append(t.Notes, notes...)
	if len(r.Trace) == sched.MaxTrace {
		t.Omitted = r.Steps - len(r.Trace)
	}
	x := newExecution(r)
	t.Lanes = x.lanes()
	t.Boxes = x.boxes()
	t.Spans = x.spans(t.Boxes)
	t.Links = x.links(t.Boxes)
	x.failure(t)
	markIdle(t)
	return t
}

// execution indexes a trace.
type execution struct {
	r       *sched.Result
	events  []sched.Event
	lane    []int          // by event: its lane
	next    []int          // by event: the same goroutine's next event, -1 if none
	prev    []int          // by event: the same goroutine's previous event, -1 if none
	names   []string       // by lane: the goroutine's lineage
	index   map[string]int // lane by lineage
	preempt map[[2]string]sched.Choice
	stuck   map[string]sched.Waiting // goroutines stuck for good at the end
	box     []int                    // by event: its box
}

func newExecution(r *sched.Result) *execution {
	x := &execution{r: r, events: r.Trace, index: map[string]int{},
		preempt: map[[2]string]sched.Choice{}, stuck: map[string]sched.Waiting{}}
	x.lane = make([]int, len(x.events))
	x.next = make([]int, len(x.events))
	x.prev = make([]int, len(x.events))
	last := map[string]int{}
	for i, e := range x.events {
		l, ok := x.index[e.G]
		if !ok {
			l = len(x.names)
			x.index[e.G] = l
			x.names = append(x.names, e.G)
		}
		x.lane[i], x.next[i], x.prev[i] = l, -1, -1
		if p, ok := last[e.G]; ok {
			x.next[p], x.prev[i] = i, p
		}
		last[e.G] = i
	}
	for _, c := range r.Schedule() {
		if c.Kind == sched.RunChoice && c.Preempt {
			x.preempt[[2]string{c.G, strconv.Itoa(c.N)}] = c
		}
	}
	if f := r.Failure; f != nil && (f.Kind == sched.Deadlock || f.Kind == sched.Leak) {
		for _, w := range f.Waiting {
			x.stuck[w.Goroutine] = w
		}
	}
	return x
}

func (x *execution) lanes() []Lane {
	lanes := make([]Lane, len(x.names))
	for i, name := range x.names {
		lanes[i] = Lane{Name: name}
		if w, ok := x.stuck[name]; ok {
			lanes[i].Note = fmt.Sprintf("stuck in %s at %s", w.Op, text.OrDash(w.Site))
		}
	}
	return lanes
}

// continues reports whether event i's goroutine went on right after it.
func (x *execution) continues(i int) bool {
	return i+1 < len(x.events) && x.lane[i+1] == x.lane[i]
}

// preemption returns the preemption of the schedule at event i, if any.
func (x *execution) preemption(i int) (sched.Choice, bool) {
	e := x.events[i]
	c, ok := x.preempt[[2]string{e.G, strconv.Itoa(e.N)}]
	return c, ok
}

// continuation reports whether event i continues the operation of its
// goroutine's previous event (it waited in it, and reached it again).
func (x *execution) continuation(i int, prev int) bool {
	return prev >= 0 && x.events[prev].Ops == x.events[i].Ops
}

func (x *execution) boxes() []Box {
	boxes := make([]Box, 0, len(x.events))
	x.box = make([]int, len(x.events))
	for i, e := range x.events {
		b := Box{Lane: x.lane[i], At: i, Time: e.At, Dur: x.dur(i), Op: e.Op, Site: e.Site, Kind: Event}
		if x.continuation(i, x.prev[i]) {
			b.Kind = Continuation
		}
		if c, ok := x.preemption(i); ok {
			b.Kind = Preempted
			b.Note = "preempted: " + x.instead(c)
		}
		x.box[i] = len(boxes)
		boxes = append(boxes, b)
	}
	return boxes
}

// spans returns the stretches each goroutine waited: from the event after
// the one it stopped at to its own next event (it runs again right before
// that one), or to the end for a goroutine stuck for good.
func (x *execution) spans(boxes []Box) []Span {
	var spans []Span
	for i, e := range x.events {
		if x.continues(i) {
			continue
		}
		l, to := x.lane[i], x.next[i]
		from := boxes[x.box[i]].Time + boxes[x.box[i]].Dur
		var s Span
		switch c, preempted := x.preemption(i); {
		case to < 0:
			w, ok := x.stuck[e.G]
			if !ok {
				continue // it went on to its end
			}
			s = Span{Lane: l, From: i + 1, To: len(x.events), Kind: Blocked, ToTime: x.end(),
				Note: fmt.Sprintf("stuck in %s at %s", w.Op, text.OrDash(w.Site))}
		case i+1 >= to:
			continue
		case preempted:
			s = Span{Lane: l, From: i + 1, To: to, Kind: Ready, ToTime: x.events[to].At,
				Note: "preempted at " + e.Op + ": " + x.instead(c)}
		case e.Op == "Yield":
			s = Span{Lane: l, From: i + 1, To: to, Kind: Ready, ToTime: x.events[to].At,
				Note: "yielded: the others ran"}
		default:
			s = Span{Lane: l, From: i + 1, To: to, Kind: Blocked, ToTime: x.events[to].At,
				Note: "waiting in " + e.Op}
		}
		s.FromTime = from
		spans = append(spans, s)
	}
	return spans
}

// instead says what ran instead at a preemption.
func (x *execution) instead(c sched.Choice) string {
	if c.Next == sched.Clock.ID() {
		return "the clock moved on first (a timer fired before it was due)"
	}
	return "goroutine " + c.Next + " ran instead"
}

// dur is how long event i lasts in virtual time: a tick, or less if the
// next event came sooner.
func (x *execution) dur(i int) time.Duration {
	if i+1 < len(x.events) {
		return min(x.events[i+1].At-x.events[i].At, sched.Tick)
	}
	return sched.Tick
}

// end is the virtual time after the last event.
func (x *execution) end() time.Duration {
	if len(x.events) == 0 {
		return 0
	}
	return x.events[len(x.events)-1].At + sched.Tick
}

// failure marks where the execution failed: the failing goroutine's last
// event, or the event of each goroutine stuck in a deadlock or leak.
func (x *execution) failure(t *Timeline) {
	f := x.r.Failure
	if f == nil || len(x.events) == 0 {
		return
	}
	mark := func(g, note string) {
		l, ok := x.index[g]
		if !ok {
			return
		}
		for i := len(x.events) - 1; i >= 0; i-- {
			if x.lane[i] == l {
				b := &t.Boxes[x.box[i]]
				b.Kind = Failure
				b.Note = strings.TrimSpace(note + "; " + b.Note)
				b.Note = strings.TrimSuffix(b.Note, ";")
				return
			}
		}
	}
	switch {
	case len(x.stuck) > 0:
		for _, w := range f.Waiting {
			mark(w.Goroutine, fmt.Sprintf("%s: stuck in %s at %s", f.Kind, w.Op, text.OrDash(w.Site)))
		}
	case f.Goroutine != "":
		mark(f.Goroutine, f.Summary())
		if l, ok := x.index[f.Goroutine]; ok && t.Lanes[l].Note == "" {
			t.Lanes[l].Note = f.Kind.String() + " at " + text.OrDash(f.Site)
		}
	default:
		mark(x.events[len(x.events)-1].G, f.Summary())
	}
}

// markIdle marks the lanes that play no part in a preemption, the failure,
// or a link (but a go statement's) with a lane that does, in pictures of
// more than a few goroutines: they are drawn narrow.
func markIdle(t *Timeline) {
	if len(t.Lanes) <= 8 {
		return
	}
	busy := make([]bool, len(t.Lanes))
	busy[0] = true // the test's own goroutine
	byName := map[string]int{}
	for i, l := range t.Lanes {
		byName[l.Name] = i
	}
	for _, b := range t.Boxes {
		if b.Kind == Preempted || b.Kind == Failure {
			busy[b.Lane] = true
		}
	}
	for _, s := range t.Spans {
		if s.Kind == Ready {
			// The goroutine that ran instead.
			if _, who, ok := strings.Cut(s.Note, "goroutine "); ok {
				if l, ok := byName[strings.Fields(who)[0]]; ok {
					busy[l] = true
				}
			}
		}
	}
	core := append([]bool(nil), busy...)
	for _, k := range t.Links {
		if k.Kind == "go" {
			continue // every goroutine was started by another
		}
		from, to := t.Boxes[k.From].Lane, t.Boxes[k.To].Lane
		if core[from] || core[to] {
			busy[from], busy[to] = true, true
		}
	}
	for i := range t.Lanes {
		t.Lanes[i].Idle = !busy[i]
	}
}
