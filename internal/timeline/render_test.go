package timeline_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/weftdev/weft/internal/timeline"
	"github.com/weftdev/weft/sim"
)

// element is an element of the HTML page, as the tests read it.
type element struct {
	name  string
	attrs map[string]string
	text  string // the text directly inside it, <title> included for boxes
}

// parsePage reads the page as XML (it is XHTML) and returns its elements
// in document order.
func parsePage(t *testing.T, page []byte) []*element {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(page))
	var out, stack []*element
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the page is not well formed: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			e := &element{name: tok.Name.Local, attrs: map[string]string{}}
			for _, a := range tok.Attr {
				e.attrs[a.Name.Local] = a.Value
			}
			out = append(out, e)
			stack = append(stack, e)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				stack[len(stack)-1].text += string(tok)
			}
		}
	}
	if len(stack) != 0 {
		t.Fatalf("%d elements left open", len(stack))
	}
	return out
}

func withClass(els []*element, name, class string) []*element {
	var out []*element
	for _, e := range els {
		if e.name == name && strings.Contains(" "+e.attrs["class"]+" ", " "+class+" ") {
			out = append(out, e)
		}
	}
	return out
}

func html(t *testing.T, tl *timeline.Timeline) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := tl.HTML(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// The page has a header per lane, a box per event labeled with its
// operation and site, a shaded rectangle per wait, an arrow per link, and
// the failure in its notes; it is self-contained.
func TestHTML(t *testing.T) {
	f := findFailure(t, lostUpdate)
	tl := timeline.FromResult(f, "TestLostUpdate <b>", "found: strategy random")
	page := html(t, tl)
	els := parsePage(t, page)
	for _, bad := range []string{"<script", "http://", "https://", "src="} {
		if bytes.Contains(bytes.ReplaceAll(page, []byte(`xmlns="http://www.w3.org/2000/svg"`), nil), []byte(bad)) {
			t.Errorf("the page holds %q: it must be self-contained", bad)
		}
	}
	if !bytes.Contains(page, []byte("TestLostUpdate &lt;b&gt;")) {
		t.Error("the title is not escaped")
	}
	heads := withClass(els, "div", "lane-head")
	if len(heads) != len(tl.Lanes)+1 { // and the gutter's
		t.Errorf("%d lane headers for %d lanes", len(heads)-1, len(tl.Lanes))
	}
	boxes := withClass(els, "g", "box")
	if len(boxes) != len(tl.Boxes) {
		t.Fatalf("%d boxes drawn for %d events", len(boxes), len(tl.Boxes))
	}
	for i, b := range boxes {
		want := tl.Boxes[i]
		if b.attrs["data-op"] != want.Op || b.attrs["data-kind"] != string(want.Kind) || b.attrs["data-lane"] != tl.Lanes[want.Lane].Name {
			t.Errorf("box %d drawn as %v, want %+v", i, b.attrs, want)
		}
	}
	var texts []string
	for _, e := range withClass(els, "text", "op") {
		texts = append(texts, e.text)
	}
	for _, e := range withClass(els, "text", "site") {
		texts = append(texts, e.text)
	}
	all := strings.Join(texts, "\n")
	for _, want := range []string{"Var.Load", "Var.Store", "execution_test.go:"} {
		if !strings.Contains(all, want) {
			t.Errorf("no box labeled %q", want)
		}
	}
	if n := len(withClass(els, "path", "link")); n != len(tl.Links) || n == 0 {
		t.Errorf("%d arrows for %d links", n, len(tl.Links))
	}
	waits := len(withClass(els, "rect", "blocked")) + len(withClass(els, "rect", "ready"))
	if waits != len(tl.Spans) {
		t.Errorf("%d shaded waits for %d spans", waits, len(tl.Spans))
	}
	if n := len(withClass(els, "rect", "preempted")); n != f.Schedule().Preemptions() {
		t.Errorf("%d preempted boxes for %d preemptions", n, f.Schedule().Preemptions())
	}
	if len(withClass(els, "rect", "failure")) != 1 || !bytes.Contains(page, []byte("failure: panic")) {
		t.Error("the failure is not marked")
	}
}

// longRun: two goroutines that each update a variable 2000 times.
func longRun() {
	var n sim.Var[int]
	var wg sim.WaitGroup
	for range 2 {
		wg.Go(func() {
			for range 2000 {
				n.Store(n.Load() + 1)
			}
		})
	}
	wg.Wait()
}

// A picture of a long execution leaves out what is far from its
// preemptions and failure, and says so.
func TestHTMLLong(t *testing.T) {
	r := traced(t, longRun, nil)
	tl := timeline.FromResult(r, "long")
	if tl.Steps < 6000 {
		t.Fatalf("%d events: not long", tl.Steps)
	}
	els := parsePage(t, html(t, tl))
	boxes := withClass(els, "g", "box")
	if len(boxes) >= tl.Steps || len(boxes) < 900 || len(boxes) > 3000 {
		t.Errorf("%d boxes drawn of %d events", len(boxes), tl.Steps)
	}
	gaps := withClass(els, "text", "gap")
	if len(gaps) == 0 || !strings.Contains(gaps[0].text, "events left out") {
		t.Errorf("no gap row: %v", gaps)
	}
}

func TestPerfetto(t *testing.T) {
	f := findFailure(t, lostUpdate)
	tl := timeline.FromResult(f, "TestLostUpdate")
	var b bytes.Buffer
	if err := tl.Perfetto(&b); err != nil {
		t.Fatal(err)
	}
	var tr struct {
		TraceEvents []struct {
			Ph, Name, Cat, ID, Bp string
			Pid, Tid              int
			Ts, Dur               float64
			Args                  map[string]any
		} `json:"traceEvents"`
		DisplayTimeUnit string `json:"displayTimeUnit"`
	}
	if err := json.Unmarshal(b.Bytes(), &tr); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	threads := map[int]string{}
	type slice struct{ from, to int64 } // nanoseconds, as the viewer reads them
	ns := func(us float64) int64 { return int64(math.Round(us * 1000)) }
	slices := map[int][]slice{}
	var starts, finishes []int
	boxes, spans := 0, 0
	for i, e := range tr.TraceEvents {
		switch e.Ph {
		case "M":
			if e.Name == "thread_name" {
				threads[e.Tid] = e.Args["name"].(string)
			}
		case "X":
			if e.Dur <= 0 {
				t.Errorf("slice %q without duration", e.Name)
			}
			slices[e.Tid] = append(slices[e.Tid], slice{ns(e.Ts), ns(e.Ts + e.Dur)})
			if e.Cat == string(timeline.Blocked) || e.Cat == string(timeline.Ready) {
				spans++
			} else {
				boxes++
			}
		case "s":
			starts = append(starts, i)
		case "f":
			finishes = append(finishes, i)
			if e.Bp != "e" {
				t.Errorf("flow end %q does not bind to its enclosing slice", e.ID)
			}
		}
	}
	if len(threads) != len(tl.Lanes) || !strings.HasPrefix(threads[1], "goroutine 0") {
		t.Errorf("tracks %v for %d lanes", threads, len(tl.Lanes))
	}
	if boxes != len(tl.Boxes) || spans != len(tl.Spans) {
		t.Errorf("%d event slices and %d wait slices for %d boxes and %d spans", boxes, spans, len(tl.Boxes), len(tl.Spans))
	}
	if len(starts) != len(tl.Links) || len(finishes) != len(tl.Links) {
		t.Fatalf("%d flow starts and %d ends for %d links", len(starts), len(finishes), len(tl.Links))
	}
	// Each end of a flow lies in a slice of its track, which it binds to.
	for k := range starts {
		for _, i := range []int{starts[k], finishes[k]} {
			e := tr.TraceEvents[i]
			in := false
			for _, s := range slices[e.Tid] {
				in = in || s.from <= ns(e.Ts) && ns(e.Ts) < s.to
			}
			if !in {
				t.Errorf("flow %s %s at %v on track %d is in no slice", e.ID, e.Ph, e.Ts, e.Tid)
			}
		}
	}
	// Slices of a track do not overlap: the viewer nests overlapping ones.
	for tid, ss := range slices {
		for i := range ss {
			for j := range i {
				if ss[i].from < ss[j].to && ss[j].from < ss[i].to {
					t.Errorf("track %d: slices %v and %v overlap", tid, ss[j], ss[i])
				}
			}
		}
	}
}
