package timeline

import (
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// Perfetto writes the timeline as Chrome trace-event JSON, which the
// Perfetto UI (ui.perfetto.dev) and chrome://tracing open: one track per
// lane, named after it, with the boxes and the spans as slices on the
// virtual time axis, and the links as flow events from a box to the slice
// its target went on from.
func (t *Timeline) Perfetto(w io.Writer) error {
	tr := trace{DisplayTimeUnit: "ns", Metadata: map[string]string{"title": t.Title}}
	add := func(e traceEvent) { tr.TraceEvents = append(tr.TraceEvents, e) }
	add(traceEvent{Ph: "M", Name: "process_name", Pid: 1, Args: map[string]any{"name": t.Title}})
	for i, l := range t.Lanes {
		name := "goroutine " + l.Name
		if l.Note != "" {
			name += " (" + l.Note + ")"
		}
		add(traceEvent{Ph: "M", Name: "thread_name", Pid: 1, Tid: i + 1, Args: map[string]any{"name": name}})
		add(traceEvent{Ph: "M", Name: "thread_sort_index", Pid: 1, Tid: i + 1, Args: map[string]any{"sort_index": i}})
	}
	at := map[int]time.Duration{} // virtual time by position
	for _, b := range t.Boxes {
		at[b.At] = b.Time
		args := map[string]any{"site": b.Site, "event": b.At}
		if b.Note != "" {
			args["note"] = b.Note
		}
		add(traceEvent{Ph: "X", Name: b.Op, Cat: string(b.Kind), Pid: 1, Tid: b.Lane + 1, Ts: micros(b.Time), Dur: micros(max(b.Dur, time.Nanosecond)), Args: args})
	}
	for _, s := range t.Spans {
		if s.ToTime <= s.FromTime {
			continue
		}
		name := string(s.Kind)
		add(traceEvent{Ph: "X", Name: name, Cat: string(s.Kind), Pid: 1, Tid: s.Lane + 1, Ts: micros(s.FromTime), Dur: micros(s.ToTime - s.FromTime),
			Args: map[string]any{"note": s.Note, "from event": s.From, "to event": s.To}})
	}
	for i, k := range t.Links {
		from, to := t.Boxes[k.From], t.Boxes[k.To]
		end, ok := at[k.At]
		if !ok || k.At <= to.At {
			end = to.Time
		}
		id := fmt.Sprint(i + 1)
		add(traceEvent{Ph: "s", Name: k.Kind, Cat: "link", ID: id, Pid: 1, Tid: from.Lane + 1, Ts: micros(from.Time)})
		add(traceEvent{Ph: "f", Bp: "e", Name: k.Kind, Cat: "link", ID: id, Pid: 1, Tid: to.Lane + 1, Ts: micros(end)})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	if err := enc.Encode(tr); err != nil {
		return fmt.Errorf("timeline: writing trace events: %w", err)
	}
	return nil
}

// trace is the JSON object format of Chrome's trace events.
type trace struct {
	TraceEvents     []traceEvent      `json:"traceEvents"`
	DisplayTimeUnit string            `json:"displayTimeUnit"`
	Metadata        map[string]string `json:"metadata,omitempty"`
}

// traceEvent is one trace event: ph is its phase (M metadata, X complete,
// s and f the start and end of a flow).
type traceEvent struct {
	Ph   string         `json:"ph"`
	Name string         `json:"name"`
	Cat  string         `json:"cat,omitempty"`
	ID   string         `json:"id,omitempty"`
	Bp   string         `json:"bp,omitempty"`
	Pid  int            `json:"pid"`
	Tid  int            `json:"tid"`
	Ts   float64        `json:"ts"`
	Dur  float64        `json:"dur,omitempty"`
	Args map[string]any `json:"args,omitempty"`
}

// micros converts a virtual time to the format's microseconds.
func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
